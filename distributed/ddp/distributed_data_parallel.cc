#include "distributed/ddp/distributed_data_parallel.h"

#include "autograd/grad_mode.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/distributed.h"
#include "distributed/host_value_collectives.h"
#include "distributed/join.h"
#include "tensor/error.h"

namespace brisk::dist {

std::shared_ptr<ProcessGroup> detail::ddp_default_group() {
  BRISK_CHECK(is_initialized(),
              "DistributedDataParallel(module): no process group given and there is no default group: call "
              "dist::init_process_group (or dist::init_distributed) first");
  return default_group();
}

NoSyncGuard::NoSyncGuard(DistributedDataParallelBase& ddp) : ddp_(ddp), previous_(ddp.require_backward_grad_sync()) {
  ddp_.set_require_backward_grad_sync(false);
}

NoSyncGuard::~NoSyncGuard() { ddp_.set_require_backward_grad_sync(previous_); }

DistributedDataParallelBase::DistributedDataParallelBase(std::shared_ptr<nn::Module> module,
                                                         std::shared_ptr<ProcessGroup> group,
                                                         const DistributedDataParallelOptions& options)
    : wrapped_(module), group_(std::move(group)), options_(options) {
  BRISK_CHECK(module != nullptr, "DistributedDataParallel: the module is null");
  BRISK_CHECK(group_ != nullptr, "DistributedDataParallel: the process group is null");
  BRISK_CHECK(options_.bucket_cap_mb() > 0 && options_.first_bucket_cap_mb() > 0,
              "DistributedDataParallel: bucket caps must be positive (bucket_cap_mb {}, first_bucket_cap_mb {})",
              options_.bucket_cap_mb(), options_.first_bucket_cap_mb());
  register_module("module", module);
  Replica replica = replicate_from_rank0(*module, *group_, name());
  buffers_ = replica.buffers;
  reducer_ = std::make_unique<Reducer>(std::move(replica.trained), std::move(replica.trained_names), group_, options_);
}

void DistributedDataParallelBase::pre_forward() {
  const bool grad_sync = autograd::GradMode::is_enabled() && require_backward_grad_sync_;
  const bool training_forward = group_->size() > 1 && autograd::GradMode::is_enabled() && is_training();
  int buffer_root = 0;
  int divisor = 0;
  if (training_forward && join_config().enable) {
    Join::notify_join_context(*this);
    const JoinIteration iteration =
        exchange_join_iteration(require_backward_grad_sync_ ? JoinRole::kTrainingWithSync : JoinRole::kTraining);
    buffer_root = iteration.authoritative_rank;
    divisor = join_divisor(iteration);
  } else if (training_forward && options_.check_uneven_inputs()) {
    exchange_join_state(true);
  }
  reducer_->set_divisor(divisor);
  if (grad_sync) reducer_->rebuild_buckets();
  if (will_sync_buffers()) broadcast_coalesced(*group_, buffers_, buffer_root);
}

bool DistributedDataParallelBase::will_sync_buffers() const {
  return options_.broadcast_buffers() && require_forward_param_sync_ && !buffers_.empty() && group_->size() > 1;
}

Tensor DistributedDataParallelBase::forward(const Tensor& input) {
  pre_forward();
  Tensor output = wrapped_->forward(input);
  post_forward({output});
  return output;
}

void DistributedDataParallelBase::post_forward(const std::vector<Tensor>& outputs) {
  if (autograd::GradMode::is_enabled() && require_backward_grad_sync_) {
    require_forward_param_sync_ = true;
    reducer_->prepare_for_backward(outputs);
  } else {
    require_forward_param_sync_ = false;
    if (autograd::GradMode::is_enabled()) reducer_->prepare_for_local_backward();
  }
}

void DistributedDataParallelBase::join() {
  BRISK_CHECK(!join_config().enable,
              "DistributedDataParallel::join() on rank {} inside an enabled dist::Join: call the Join's finish() "
              "instead",
              group_->rank());
  if (options_.check_uneven_inputs() && group_->size() > 1) exchange_join_state(false);
}

void DistributedDataParallelBase::exchange_join_state(bool training) {
  const int world = group_->size();
  const int rank = group_->rank();
  if (training) ++training_iterations_;
  // [0, world): 1 for a rank still training; [world, 2 world): its training iterations.
  std::vector<int64_t> words(2 * static_cast<size_t>(world), 0);
  words[rank] = training ? 1 : 0;
  words[world + rank] = training_iterations_;
  words = all_reduce_values(*group_, words, ReduceOp::SUM);
  std::vector<int> joined, running;
  for (int r = 0; r < world; ++r) (words[r] != 0 ? running : joined).push_back(r);
  if (joined.empty() || running.empty()) return;
  std::vector<std::string> done, busy;
  for (int r : joined) done.push_back(fmt::format("rank {} after {} training iterations", r, words[world + r]));
  for (int r : running) busy.push_back(fmt::format("rank {} (iteration {})", r, words[world + r]));
  BRISK_FAIL(
      "DistributedDataParallel: uneven inputs: {} ran out of inputs (joined) while {} still trained (seen on rank "
      "{}); every rank must run the same number of iterations (shard with DistributedSampler, drop the last "
      "incomplete batch)",
      fmt::join(done, ", "), fmt::join(busy, ", "), rank);
}

// ---- Join ----

namespace detail {

class DDPJoinHook final : public JoinHook {
 public:
  explicit DDPJoinHook(DistributedDataParallelBase& ddp) : ddp_(ddp) {}
  void main_hook() override { ddp_.shadow_iteration(); }
  void post_hook(bool is_last_joiner) override { ddp_.sync_final_model(is_last_joiner); }

 private:
  DistributedDataParallelBase& ddp_;
};

}  // namespace detail

std::unique_ptr<JoinHook> DistributedDataParallelBase::join_hook(const JoinOptions& options) {
  divide_by_initial_world_size_ = options.divide_by_initial_world_size();
  return std::make_unique<detail::DDPJoinHook>(*this);
}

DistributedDataParallelBase::JoinIteration DistributedDataParallelBase::exchange_join_iteration(JoinRole role) {
  std::vector<int64_t> roles(static_cast<size_t>(group_->size()), 0);
  roles[group_->rank()] = static_cast<int64_t>(role);
  roles = all_reduce_values(*group_, roles, ReduceOp::SUM);
  JoinIteration iteration;
  for (int r = 0; r < group_->size(); ++r) {
    if (roles[r] == static_cast<int64_t>(JoinRole::kJoined)) continue;
    ++iteration.training;
    iteration.authoritative_rank = r;
    iteration.sync = iteration.sync || roles[r] == static_cast<int64_t>(JoinRole::kTrainingWithSync);
  }
  return iteration;
}

int DistributedDataParallelBase::join_divisor(const JoinIteration& iteration) const {
  return divide_by_initial_world_size_ ? group_->size() : iteration.training;
}

void DistributedDataParallelBase::shadow_iteration() {
  // The collectives of a training rank's pre_forward and backward, in the same order.
  const JoinIteration iteration = exchange_join_iteration(JoinRole::kJoined);
  if (iteration.sync) reducer_->rebuild_buckets();
  if (will_sync_buffers()) broadcast_coalesced(*group_, buffers_, iteration.authoritative_rank);
  // As post_forward sets it on the training ranks.
  require_forward_param_sync_ = iteration.sync;
  if (!iteration.sync) return;
  reducer_->set_divisor(join_divisor(iteration));
  reducer_->shadow_backward();
}

void DistributedDataParallelBase::sync_final_model(bool is_last_joiner) {
  if (group_->size() == 1) return;
  const int64_t root =
      all_reduce_values(*group_, {is_last_joiner ? group_->rank() : int64_t{-1}}, ReduceOp::MAX).front();
  std::vector<Tensor> state = parameters();
  if (options_.broadcast_buffers()) state.insert(state.end(), buffers_.begin(), buffers_.end());
  broadcast_coalesced(*group_, state, static_cast<int>(root));
}

}  // namespace brisk::dist
