#pragma once
// The tensors the sharded checkpoint tests save: shapes that split unevenly over 2, 3 and 4
// ranks (some ranks holding no row), a 0-d tensor, a replicated integer tensor, and dtypes
// other than float64; with each rank's part of them for a world size.
#include <cstdint>
#include <string>

#include "checkpoint/sharded/sharded_state_dict.h"
#include "nn/module.h"
#include "tensor/native/ops.h"

namespace brisk::checkpoint::testing {

// The full tensors, with values that tell every element apart (`seed` shifts them all).
inline nn::StateDict full_state(double seed = 0) {
  auto counting = [&](const Shape& shape, DType dtype, double start) {
    Tensor t = native::arange(seed + start, seed + start + static_cast<double>(shape_numel(shape)), 1,
                              TensorOptions(kFloat64));
    return native::to(native::reshape(t, shape), kCPU, dtype);
  };
  nn::StateDict state;
  state.insert("fc.weight", counting({10, 3}, kFloat64, 0));  // 3,3,3,1 rows over 4 ranks
  state.insert("fc.bias", counting({5}, kFloat32, 100));      // 2,2,1,0
  state.insert("scale", counting({}, kFloat64, 200));         // 0-d: rank 0
  state.insert("tiny", counting({2, 2, 2}, kBFloat16, 300));  // 1,1,0,0
  state.insert("empty", counting({0, 4}, kFloat64, 0));       // no rows at all
  return state;
}

// Replicated on every rank, saved once.
inline Tensor counter(double seed = 0) { return native::full({3}, seed + 7, TensorOptions(kInt64)); }

// Rank `rank`'s part of full_state(seed) over `world_size` ranks (dim0_shard's rows), its
// local tensors copies; "counter" replicated.
inline ShardedStateDict rank_state(int rank, int world_size, double seed = 0) {
  ShardedStateDict out;
  for (const auto& [name, full] : full_state(seed)) {
    const dist::RowRange rows = dist::dim0_shard(dim0_rows(full.sizes()), world_size, rank);
    Tensor as_rows = full.dim() == 0 ? native::view(full, {1}) : full;
    out.insert(name, sharded(native::clone(native::narrow(as_rows, 0, rows.begin, rows.rows)), full.sizes(), rows));
  }
  out.insert("counter", replicated(counter(seed)));
  return out;
}

// The same entries, zero-filled: what a rank loads into.
inline ShardedStateDict zero_state(int rank, int world_size) {
  ShardedStateDict out = rank_state(rank, world_size);
  for (auto& [name, entry] : out) entry.local = native::zeros(entry.local.sizes(), TensorOptions(entry.local.dtype()));
  return out;
}

}  // namespace brisk::checkpoint::testing
