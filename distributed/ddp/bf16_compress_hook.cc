#include "distributed/ddp/bf16_compress_hook.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

std::shared_ptr<CommFuture> BF16CompressHook::run(GradBucket& bucket) {
  Tensor buffer = bucket.buffer();
  Tensor compressed = native::to(buffer, buffer.device(), kBFloat16);
  native::binary_(BinaryOp::Div, compressed, Scalar(static_cast<double>(group_->size())));
  auto work = group_->all_reduce(compressed, ReduceOp::SUM);
  return std::make_shared<WorkFuture>(std::move(work), [buffer, compressed]() mutable {
    native::copy_(buffer, compressed);
    return buffer;
  });
}

}  // namespace brisk::dist
