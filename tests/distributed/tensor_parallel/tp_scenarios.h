#pragma once
// Tensor-parallel models trained on the ranks of a group against their unsplit twins trained in
// the same process (float64, the same data on every rank; the split model on the group's device,
// the twin on the CPU), for tp_training_test (thread ranks)
// and tp_worker (processes):
//
//   "mlp"        ColumnParallelLinear -> tanh -> RowParallelLinear, mse loss
//   "lm"         VocabParallelEmbedding -> Column -> tanh -> Row -> Column head (vocab split)
//                -> vocab_parallel_cross_entropy
//   each also "_sp" (sequence parallel: activations between the blocks split along dim 0).
//
// Every step compares the loss and every gradient (gathered whole); after the steps, the
// parameters (tp::full_state_dict). The unsplit model's initial state is loaded into the split
// one with tp::load_full_state_dict.
#include <string>
#include <vector>

#include "distributed/distributed.h"

namespace brisk::dist::testing {

// "mlp", "mlp_sp", "lm", "lm_sp".
const std::vector<std::string>& tp_scenario_names();

// The largest difference from the unsplit model over the losses, gradients and parameters of
// `steps` steps of `optimizer` ("sgd": momentum, "adamw"). Collective over `group`.
double run_tp_scenario(const std::string& name, const std::string& optimizer, const GroupPtr& group, int steps = 3);

}  // namespace brisk::dist::testing
