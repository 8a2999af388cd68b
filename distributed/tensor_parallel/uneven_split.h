#pragma once
// How tensor parallelism splits a dimension over the N ranks of a group, and the collectives
// that move such parts when they differ in size (the dimension is not divisible by N).
//
// The split is torch.chunk's, the rule of dist::dim0_shard (distributed/shard/flat_shard_layout.h):
// with c = ceil(size / N), rank r holds [r*c, min((r+1)*c, size)), so the last ranks hold fewer
// (7 over 3 ranks: 3, 3, 1; 5 over 4: 2, 2, 1, 0).
//
// Backends move equal sizes only (NCCL's and Gloo's contract), so every part travels padded with
// zeros to c along the dimension and is cut back after: an all_gather or reduce_scatter of N*c
// instead of `size`, at most N-1 slices more. Nothing here records autograd history; mappings.h
// builds the differentiable functions on it.
//
//   Tensor mine = local_part(full, /*dim=*/-1, group);                    // rank's part
//   Tensor back = all_gather_along(mine, -1, group, full.size(-1));      // == full
//   Tensor sum = reduce_scatter_along(partial, 0, group);                // rank's rows of the sum
#include <cstdint>

#include "distributed/process_group.h"
#include "distributed/shard/flat_shard_layout.h"
#include "tensor/tensor.h"

namespace brisk::dist::tp {

// Rank `rank`'s part of a dimension of `size` split over `world_size` ranks.
inline RowRange split_range(int64_t size, int world_size, int rank) { return dim0_shard(size, world_size, rank); }

// This rank's part of `full` along `dim` (negative counts from the end), contiguous (full itself
// when that is all of it).
Tensor local_part(const Tensor& full, int64_t dim, const ProcessGroup& group);

// The sum of every rank's `local_size` (one all_gather of one int64 per rank): the whole size
// of a dimension that the ranks hold parts of. Throws when the parts are not the split rule's.
int64_t gathered_size(int64_t local_size, ProcessGroup& group);

// The parts of every rank along `dim`, concatenated in rank order. full_size: the gathered
// size of dim, which fixes every rank's part by the split rule; -1 takes gathered_size().
// Throws when `local` is not this rank's part of full_size.
Tensor all_gather_along(const Tensor& local, int64_t dim, ProcessGroup& group, int64_t full_size = -1);

// This rank's part along `dim` of the sum over ranks of `full` (every rank's `full` has the same
// shape).
Tensor reduce_scatter_along(const Tensor& full, int64_t dim, ProcessGroup& group);

}  // namespace brisk::dist::tp
