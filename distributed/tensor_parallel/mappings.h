#pragma once
// The differentiable communication of Megatron-style tensor parallelism (Megatron-LM's
// mappings.py): each function's backward is its conjugate, so a layer composes them and autograd
// does the rest. "Region" is the span of ranks of `group` that hold the parts of one tensor.
//
//   forward                               backward
//   copy_to_region       identity                              all-reduce (sum)
//   reduce_from_region   all-reduce (sum)                      identity
//   scatter_to_region    keep this rank's part along dim       all-gather along dim
//   gather_from_region   all-gather along dim                  keep this rank's part
//   gather_from_sequence_region          all-gather along dim 0    reduce-scatter along dim 0
//   reduce_scatter_to_sequence_region    reduce-scatter along 0    all-gather along dim 0
//
// ColumnParallelLinear starts with copy_to_region (each rank's partial input gradient is summed
// in backward) and RowParallelLinear ends with reduce_from_region (the partial outputs are
// summed in forward). Under sequence parallelism the activations between layers are split along
// dim 0 (the sequence, or the batch) and the pair copy/reduce becomes the pair
// gather_from_sequence_region / reduce_scatter_to_sequence_region: the same sums and copies,
// with each rank keeping only its rows.
//
// Parts follow uneven_split.h's rule (torch.chunk's) and travel padded. Every function is a
// collective of `group` (nullptr: the default group) in forward or in backward or both: every
// rank of the group calls it, and runs the backward, in the same order. Gradients of gradients
// work (each backward is made of these functions).
#include <cstdint>

#include "distributed/distributed.h"
#include "tensor/tensor.h"

namespace brisk::dist::tp {

Tensor copy_to_region(const Tensor& x, const GroupPtr& group);
Tensor reduce_from_region(const Tensor& x, const GroupPtr& group);
// dim: the split dimension (default the last, features).
Tensor scatter_to_region(const Tensor& x, const GroupPtr& group, int64_t dim = -1);
// full_size: the gathered size of dim; -1 exchanges the parts' sizes first (uneven_split.h).
Tensor gather_from_region(const Tensor& x, const GroupPtr& group, int64_t dim = -1, int64_t full_size = -1);
Tensor gather_from_sequence_region(const Tensor& x, const GroupPtr& group, int64_t full_size = -1);
Tensor reduce_scatter_to_sequence_region(const Tensor& x, const GroupPtr& group);

}  // namespace brisk::dist::tp
