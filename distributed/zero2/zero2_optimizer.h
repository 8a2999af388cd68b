#pragma once
// dist::Zero2Optimizer: the optimizer side of ZeRO stage 2 (zero2_data_parallel.h has the
// example). Its local optimizer, built by the factory, holds this rank's shards of the
// parameters (ParameterShards::shards(), in parameter order, empty ones included) and so the
// state of those rows only: about 1/N of a plain optimizer's. step() steps the shards, which
// updates this rank's rows of the parameters in place, then all-gathers every rank's rows
// into every rank's parameters, bucket by bucket.
//
// Collective calls (step, clip_grad_norm_, consolidate_state_dict, and GradScaler's
// unscale_/step through all_reduce_found_inf) are made by every rank in the same order.
// The Zero2DataParallel it was built over must outlive it.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "distributed/zero2/parameter_shards.h"
#include "optim/optimizer.h"

namespace brisk::dist {

class Zero2DataParallelBase;

// Builds the local optimizer over this rank's shards. It may split them into parameter
// groups (with options of their own) but must hold each exactly once.
using Zero2OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor> shards)>;

class Zero2Optimizer {
 public:
  Zero2Optimizer(Zero2DataParallelBase& model, const Zero2OptimizerFactory& factory);

  // Collective: the local step, then the all-gather of the parameters.
  void step();
  // Clears the shards' gradients and any full-size gradient accumulated under no_sync.
  void zero_grad(bool set_to_none = true);

  // Collective: as optim::clip_grad_norm_ over the unsharded parameters: the total
  // norm_type-norm of all ranks' gradient shards (each rank's sum of |g|^p, all-reduced), and
  // every shard scaled by min(1, max_norm / (total + 1e-6)). Returns the total norm, a 0-dim
  // tensor on the group's device in the parameters' dtype.
  Tensor clip_grad_norm_(double max_norm, double norm_type = 2.0, bool error_if_nonfinite = false);

  // The shards: what optim::GradScaler unscales.
  const std::vector<Tensor>& params() const { return shards_.shards(); }
  // Collective, for optim::GradScaler: any rank's found-inf flags (one per device of its
  // gradients, maybe none) max-reduced over the group, so that every rank skips the same steps.
  Tensor all_reduce_found_inf(const std::vector<Tensor>& found_inf) const;

  // The optimizer over this rank's shards: attach LR schedulers here (the same on every rank).
  optim::Optimizer& local_optimizer() { return *local_; }
  const optim::Optimizer& local_optimizer() const { return *local_; }
  const ParameterShards& shards() const { return shards_; }
  int rank() const { return shards_.group()->rank(); }

  // Collective: gathers every rank's shard state onto rank `to`, which keeps it for
  // state_dict(): the state_dict a plain optimizer over the full parameters, built with the
  // same groups, would have (every state tensor but "step" is a parameter's shape, its rows
  // concatenated from the ranks that own them).
  void consolidate_state_dict(int to = 0);
  // On the rank of the last consolidate_state_dict only; throws, naming this rank, elsewhere.
  optim::OptimizerState state_dict() const;
  // Not collective: every rank loads its rows of a full state (a consolidated one, or a plain
  // optimizer's over the same parameters and groups). Throws, naming this rank, when the state
  // does not fit.
  void load_state_dict(const optim::OptimizerState& state);

 private:
  const ParameterShards& shards_;
  std::unique_ptr<optim::Optimizer> local_;
  // The parameter index of each of the local optimizer's parameters, in its order (state
  // dicts number them so).
  std::vector<size_t> local_order_;
  std::optional<int> consolidated_to_;
  optim::OptimizerState consolidated_;
};

}  // namespace brisk::dist
