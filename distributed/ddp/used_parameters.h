#pragma once
// Which leaves a backward from some outputs can reach: DistributedDataParallel's
// find_unused_parameters walks the autograd graph once per forward with this.
#include <unordered_set>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::dist {

// The TensorImpls of the leaves whose AccumulateGrad node is reachable from the grad_fn of
// any of `outputs` (outputs that are themselves leaves count as reached).
std::unordered_set<const TensorImpl*> reachable_leaves(const std::vector<Tensor>& outputs);

}  // namespace brisk::dist
