#include "distributed/zero2/zero2_data_parallel.h"

#include "autograd/grad_mode.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/distributed.h"
#include "tensor/error.h"

namespace brisk::dist {

std::shared_ptr<ProcessGroup> detail::zero2_default_group() {
  BRISK_CHECK(is_initialized(), "Zero2DataParallel(module): no process group given and there is no default group: call "
                                "dist::init_process_group (or dist::init_distributed) first");
  return default_group();
}

Zero2NoSyncGuard::Zero2NoSyncGuard(Zero2DataParallelBase& model)
    : model_(model), previous_(model.require_backward_grad_sync()) {
  model_.set_require_backward_grad_sync(false);
}

Zero2NoSyncGuard::~Zero2NoSyncGuard() { model_.set_require_backward_grad_sync(previous_); }

Zero2DataParallelBase::Zero2DataParallelBase(std::shared_ptr<nn::Module> module, std::shared_ptr<ProcessGroup> group,
                                             const Zero2Options& options)
    : wrapped_(module), group_(std::move(group)), options_(options) {
  BRISK_CHECK(module != nullptr, "Zero2DataParallel: the module is null");
  BRISK_CHECK(group_ != nullptr, "Zero2DataParallel: the process group is null");
  BRISK_CHECK(options_.bucket_cap_mb() > 0 && options_.first_bucket_cap_mb() > 0,
              "Zero2DataParallel: bucket caps must be positive (bucket_cap_mb {}, first_bucket_cap_mb {})",
              options_.bucket_cap_mb(), options_.first_bucket_cap_mb());
  register_module("module", module);
  Replica replica = replicate_from_rank0(*module, *group_, name());
  buffers_ = replica.buffers;
  shards_ = std::make_unique<ParameterShards>(std::move(replica.trained), std::move(replica.trained_names), group_,
                                              options_);
  reducer_ = std::make_unique<GradientReduceScatter>(*shards_);
}

void Zero2DataParallelBase::pre_forward() {
  // As DDP: before the first forward after a synchronizing one (of each accumulation window).
  if (require_forward_param_sync_ && options_.broadcast_buffers() && !buffers_.empty() && group_->size() > 1) {
    broadcast_coalesced(*group_, buffers_, 0);
  }
}

Tensor Zero2DataParallelBase::forward(const Tensor& input) {
  pre_forward();
  Tensor output = wrapped_->forward(input);
  post_forward();
  return output;
}

void Zero2DataParallelBase::post_forward() {
  const bool grad = autograd::GradMode::is_enabled();
  require_forward_param_sync_ = grad && require_backward_grad_sync_;
  if (!grad) return;
  if (require_backward_grad_sync_) {
    reducer_->prepare_for_backward();
  } else {
    reducer_->prepare_for_local_backward();
  }
}

}  // namespace brisk::dist
