#include "distributed/ddp/comm_hook.h"

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
  auto work = group_->all_reduce(buffer, ReduceOp::AVG);
  return std::make_shared<WorkFuture>(std::move(work), [buffer] { return buffer; });
}

}  // namespace brisk::dist
