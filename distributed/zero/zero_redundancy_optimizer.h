#pragma once
// dist::ZeroRedundancyOptimizer: ZeRO stage 1, as torch.distributed.optim.ZeroRedundancyOptimizer.
// Every rank holds all parameters and computes all gradients (e.g. under DDP), but the
// optimizer state (momentum buffers, Adam's moments) of each parameter lives on one rank
// only, its owner, so that state memory per rank is about 1/N of a plain optimizer's.
//
//   auto ddp = dist::DistributedDataParallel(model, dist::default_group());
//   dist::ZeroRedundancyOptimizer opt(ddp->parameters(), [](std::vector<Tensor> shard) {
//     return std::make_unique<optim::SGD>(shard, optim::SGDOptions(0.1).momentum(0.9));
//   });
//   optim::StepLR scheduler(opt.local_optimizer(), 30, 0.1);  // on every rank, see below
//   for (auto& batch : loader) {
//     opt.zero_grad();
//     loss(ddp->forward(batch.data), batch.target).backward();  // averaged gradients
//     opt.step();  // each rank updates its shard, then every rank gets every parameter
//   }
//
// LR schedulers act on local_optimizer(); construct the same one on every rank. Collective
// calls (constructor, step, consolidate_state_dict) are made by every rank in the same order.
// The partition, step's broadcasts, state dicts and Join: docs/ddp.md "ZeRO stage 1".
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "distributed/join.h"
#include "distributed/process_group.h"
#include "optim/optimizer.h"

namespace brisk::dist {

// Builds the local optimizer over one rank's shard (never empty).
using OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> shard)>;

// The indices (into `numels`) that each of `world_size` ranks owns, ascending. Sizes go in
// descending order (ties in index order) to the rank with the smallest total so far (ties:
// the lowest rank), as PyTorch's ZeroRedundancyOptimizer does.
std::vector<std::vector<size_t>> partition_parameters(const std::vector<int64_t>& numels, int world_size);

namespace detail {
class ZeroJoinHook;
}

class ZeroRedundancyOptimizer : public Joinable {
 public:
  // `group` null: the default group. Collective: checks that every rank passes as many
  // parameters with as many elements (the error names the first rank that differs), since
  // all ranks must compute the same partition. Throws when a parameter is not on the group's
  // device (ProcessGroup::device(), where step() broadcasts it), when a rank's shard would be
  // empty (fewer parameters than ranks) or the factory's optimizer is not one group over the shard.
  ZeroRedundancyOptimizer(std::vector<Tensor> params, const OptimizerFactory& factory,
                          std::shared_ptr<ProcessGroup> group = nullptr);

  // Collective: local step, then the broadcasts from the owners.
  void step();
  // Clears the gradients of all parameters, not only the shard (as optim::Optimizer::zero_grad).
  void zero_grad(bool set_to_none = true);

  // Joinable: a joined rank's hook runs step() (see join.h).
  std::unique_ptr<JoinHook> join_hook(const JoinOptions& options) override;
  std::shared_ptr<ProcessGroup> join_process_group() const override { return group_; }

  // The optimizer over this rank's shard: attach LR schedulers here.
  optim::Optimizer& local_optimizer() { return *local_; }
  const optim::Optimizer& local_optimizer() const { return *local_; }
  const std::vector<Tensor>& params() const { return params_; }
  // partition()[r]: the indices into params() that rank r owns, ascending.
  const std::vector<std::vector<size_t>>& partition() const { return partition_; }
  int owner(size_t param_index) const { return owner_.at(param_index); }
  int rank() const { return group_->rank(); }

  // Collective: every rank sends its shard's state to rank `to`, which keeps it for
  // state_dict(). Replaces what an earlier consolidation gathered.
  void consolidate_state_dict(int to = 0);
  // On the rank of the last consolidate_state_dict only; a snapshot of that moment (its
  // tensors are copies). Throws, naming this rank, anywhere else.
  optim::OptimizerState state_dict() const;
  // Not collective: every rank reads the full state and loads its shard's part into the
  // local optimizer. Throws, naming this rank, when the state does not fit the parameters.
  void load_state_dict(const optim::OptimizerState& state);

 private:
  friend class detail::ZeroJoinHook;

  void check_same_parameters_on_every_rank();
  // step() without announcing the iteration to a Join: what a joined rank runs.
  void update_and_broadcast();
  void broadcast_parameters();

  std::vector<Tensor> params_;
  std::shared_ptr<ProcessGroup> group_;
  std::vector<std::vector<size_t>> partition_;
  std::vector<int> owner_;
  std::unique_ptr<optim::Optimizer> local_;
  // Where the last consolidation went (known on every rank, for state_dict's error), and on
  // that rank what it gathered.
  std::optional<int> consolidated_to_;
  optim::OptimizerState consolidated_;
};

}  // namespace brisk::dist
