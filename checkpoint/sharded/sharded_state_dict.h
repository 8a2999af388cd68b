#pragma once
// What one rank saves into, or loads from, a sharded checkpoint (save_sharded.h,
// sharded_reader.h): named entries, each a tensor of a global shape of which this rank holds
// either rows of dim 0 or all of it, as torch.distributed.checkpoint's state dicts of
// DTensors (Shard(0)) and plain tensors.
//
//   ShardedStateDict state;
//   state.insert("fc.weight", sharded(my_rows, {1000, 784}, dist::dim0_shard(1000, world, rank)));
//   state.insert("optimizer/state.0.step", replicated(step));
//
// A 0-d tensor is one row of one element, as in distributed/shard/flat_shard_layout.h: its
// holder's local tensor is [1], the others' [0].
#include <string>

#include "distributed/shard/flat_shard_layout.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace brisk::checkpoint {

struct ShardedTensor {
  Shape global_shape;
  // Saved once (by rank 0), loaded whole on every rank.
  bool replicated = false;
  // This rank's rows of dim 0: every row when replicated.
  dist::RowRange rows;
  // This rank's rows, shaped local_shape(global_shape, rows); any device, any strides. Loads
  // copy into it in place.
  Tensor local;
};

using ShardedStateDict = nn::OrderedDict<ShardedTensor>;

// Dim 0's size of a tensor of `shape`: 1 for a 0-d tensor.
int64_t dim0_rows(const Shape& shape);
// {rows.rows, shape[1:]...}; {rows.rows} for a 0-d tensor.
Shape local_shape(const Shape& global_shape, dist::RowRange rows);

// Rows `rows` of a tensor of `global_shape`; raises brisk::Error when the rows do not lie
// inside dim 0 or `local` is not shaped local_shape(global_shape, rows).
ShardedTensor sharded(Tensor local, Shape global_shape, dist::RowRange rows);
// The whole tensor, the same on every rank.
ShardedTensor replicated(Tensor full);
// Every tensor of `state` whole: an unsharded model's state (a world of one) saves and loads so.
ShardedStateDict replicated(const nn::StateDict& state);

}  // namespace brisk::checkpoint
