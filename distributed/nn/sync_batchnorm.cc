#include "distributed/nn/sync_batchnorm.h"

#include <utility>

#include "distributed/distributed.h"
#include "distributed/nn/all_gather_with_grad.h"
#include "nn/functional.h"

namespace brisk::nn {

namespace {

// The ranks of a process group, or of the default group when none is given (none at all
// before init_process_group, when each process is alone).
class ProcessGroupStatsExchange : public functional::BatchStatsExchange {
 public:
  explicit ProcessGroupStatsExchange(std::shared_ptr<dist::ProcessGroup> group) : group_(std::move(group)) {}

  int size() const override {
    if (group_) return group_->size();
    return dist::is_initialized() ? dist::get_world_size() : 1;
  }
  Tensor all_gather(const Tensor& stats) const override {
    const Device device = group_ ? group_->device() : dist::default_group()->device();
    BRISK_CHECK(stats.device() == device,
                "SyncBatchNorm: the input is on {}, but its process group exchanges tensors on {}: move the model "
                "and its inputs there (with NCCL: the rank's GPU)",
                stats.device(), device);
    return dist::all_gather_with_grad(stats, group_);
  }

 private:
  std::shared_ptr<dist::ProcessGroup> group_;
};

}  // namespace

SyncBatchNormImpl::SyncBatchNormImpl(const BatchNormOptions& options, std::shared_ptr<dist::ProcessGroup> process_group)
    : BatchNormImplBase(options, "SyncBatchNorm", {2, 3, 4, 5}) {
  stats_exchange = std::make_shared<ProcessGroupStatsExchange>(std::move(process_group));
}

int convert_sync_batchnorm(Module& module, std::shared_ptr<dist::ProcessGroup> process_group) {
  auto exchange = std::make_shared<ProcessGroupStatsExchange>(std::move(process_group));
  int converted = 0;
  for (const std::shared_ptr<Module>& m : module.modules()) {
    if (auto* bn = m->as<BatchNormImplBase>()) {
      bn->stats_exchange = exchange;
      ++converted;
    }
  }
  return converted;
}

}  // namespace brisk::nn
