#pragma once
// Collectives over a few host integers (counts, flags, shapes, orders): what DDP, ZeRO and
// the training program exchange to coordinate ranks. The values travel in a tensor on
// group.device(), as every backend requires (NCCL takes no CPU tensor), and come back to the
// host with one copy; no caller touches device memory through a host pointer.
//
//   std::vector<int64_t> flags{still_training, iterations};
//   flags = all_reduce_values(*group, flags, ReduceOp::SUM);   // the same on every rank
//
// Each call is collective and blocking; every rank passes as many values.
#include <cstdint>
#include <vector>

#include "distributed/process_group.h"

namespace brisk::dist {

// The element-wise reduction of every rank's values.
std::vector<int64_t> all_reduce_values(ProcessGroup& group, const std::vector<int64_t>& values, ReduceOp op);

// `root`'s values, on every rank.
std::vector<int64_t> broadcast_values(ProcessGroup& group, const std::vector<int64_t>& values, int root);

// Every rank's values, concatenated in rank order (size() * values.size() of them).
std::vector<int64_t> all_gather_values(ProcessGroup& group, const std::vector<int64_t>& values);

}  // namespace brisk::dist
