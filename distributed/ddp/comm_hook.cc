#include "distributed/ddp/comm_hook.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

std::shared_ptr<Work> AllReduceHook::run(GradBucket& bucket) {
  Tensor buffer = bucket.buffer();
  if (divisor_ == 0) {
    return group_->all_reduce(buffer, ReduceOp::AVG)->then([buffer] { return buffer; });
  }
  return group_->all_reduce(buffer, ReduceOp::SUM)->then([buffer, divisor = divisor_]() mutable {
    native::binary_(BinaryOp::Div, buffer, Scalar(static_cast<double>(divisor)));
    return buffer;
  });
}

}  // namespace brisk::dist
