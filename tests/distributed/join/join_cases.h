#pragma once
// The cases of tests/fixtures/join.json (tools/fixtures/gen_join_fixtures.py: PyTorch's DDP
// inside torch.distributed.algorithms.Join over Gloo, ranks with different batch counts),
// replayed through dist::Join on any ProcessGroup, so that the same code runs on thread ranks
// (join_threads_test) and on processes started by the launcher (join_worker).
//
// Each rank trains the case's model (float64, on the group's device: Linear(4, 5) -> Tanh ->
// Linear(5, 3), or with BatchNorm1d(5) after the first layer, whose running statistics DDP
// broadcasts under the Join from the highest rank still training) under
// DistributedDataParallel on its own batches inside a Join, then calls finish(), and compares
// with PyTorch:
//   - after each backward, the averaged gradients with the fixture's for that iteration;
//   - after the Join, the parameters and buffers with the fixture's final ones (the model of
//     the last rank to join);
//   - after the Join, .grad with the last iteration's averaged gradients (a joined rank's
//     shadowed all-reduce writes them there; PyTorch's joined ranks keep their own).
// Optimizer "sgd": SGD(lr 0.1, momentum 0.9) on every rank, as the fixture; "zero": a
// ZeroRedundancyOptimizer over the same SGD, also a Joinable of the Join, which must give
// the same parameters (joined ranks keep stepping their shard with the averaged gradients).
#include <memory>
#include <string>
#include <vector>

#include "distributed/join.h"
#include "distributed/process_group.h"

namespace brisk::dist::testing {

// The names of the fixture's cases with `world_size` ranks.
std::vector<std::string> join_case_names(int world_size);

struct JoinCaseOutcome {
  double max_grad_diff = 0;   // per-iteration gradients against PyTorch's
  double max_param_diff = 0;  // final parameters and buffers against PyTorch's
  double max_final_grad_diff = 0;
  int iterations = 0;  // this rank's training iterations
};

// Runs case `name` on this rank of `group` (whose size must be the case's world size).
JoinCaseOutcome run_join_case(const std::string& name, const std::string& optimizer,
                              const std::shared_ptr<ProcessGroup>& group);

// A small DDP model (float32, Linear(3, 2)) with SGD that runs `steps` training steps inside
// a Join with `options` and then finish() (with `call_ddp_join`, calls
// DistributedDataParallel::join() before). Throws what the Join or DDP throws.
void train_in_join(const std::shared_ptr<ProcessGroup>& group, int steps, const JoinOptions& options,
                   bool call_ddp_join = false);

}  // namespace brisk::dist::testing
