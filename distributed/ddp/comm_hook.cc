#include "distributed/ddp/comm_hook.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

Tensor WorkFuture::wait() {
  if (!result_.defined()) {
    work_->wait();
    result_ = then_();
  }
  return result_;
}

std::shared_ptr<CommFuture> AllReduceHook::run(GradBucket& bucket) {
  Tensor buffer = bucket.buffer();
  if (divisor_ == 0) {
    auto work = group_->all_reduce(buffer, ReduceOp::AVG);
    return std::make_shared<WorkFuture>(std::move(work), [buffer] { return buffer; });
  }
  auto work = group_->all_reduce(buffer, ReduceOp::SUM);
  return std::make_shared<WorkFuture>(std::move(work), [buffer, divisor = divisor_]() mutable {
    native::binary_(BinaryOp::Div, buffer, Scalar(static_cast<double>(divisor)));
    return buffer;
  });
}

}  // namespace brisk::dist
