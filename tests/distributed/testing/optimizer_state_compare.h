#pragma once
// Comparing a sharded optimizer's consolidated state with a plain optimizer's, for the ZeRO-1 and
// ZeRO-2 tests.
#include <string>

#include "optim/optimizer.h"

namespace brisk::dist::testing {

// "" when `got` has `want`'s param_groups and the same tensors (names, shapes, every element
// within `tolerance`); otherwise what differs, each item ending in "; ".
std::string compare_optimizer_states(const optim::OptimizerState& got, const optim::OptimizerState& want,
                                     double tolerance);

}  // namespace brisk::dist::testing
