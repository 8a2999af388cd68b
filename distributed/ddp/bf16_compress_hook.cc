#include "distributed/ddp/bf16_compress_hook.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

std::shared_ptr<Work> BF16CompressHook::run(GradBucket& bucket) {
  Tensor buffer = bucket.buffer();
  Tensor compressed = native::to(buffer, buffer.device(), kBFloat16);
  native::binary_(BinaryOp::Div, compressed, Scalar(static_cast<double>(group_->size())));
  return group_->all_reduce(compressed, ReduceOp::SUM)->then([buffer, compressed]() mutable {
    native::copy_(buffer, compressed);
    return buffer;
  });
}

}  // namespace brisk::dist
