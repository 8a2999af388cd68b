#pragma once
// How ZeroRedundancyOptimizer::consolidate_state_dict moves optimizer state between ranks:
// each rank packs its shard's state tensors into one byte buffer, and the buffers are
// gathered onto one rank with two collectives (their lengths, then the padded bytes).
//
// A buffer is: an 8-byte little-endian length n, n bytes of JSON describing the tensors
//   [{"param": 3, "name": "exp_avg", "dtype": 0, "shape": [16, 8],
//     "on_param_device": true}, ...]
// ("dtype": the DType enum's value), then their contents, in that order, contiguous and in
// host byte order (all ranks of a job run the same build on the same kind of machine).
#include <cstdint>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace brisk::dist {

struct ShardStateEntry {
  int64_t param;     // index into the full parameter list
  std::string name;  // "momentum_buffer", "exp_avg", "step", ...
  Tensor value;
};

std::vector<uint8_t> encode_shard_state(const std::vector<ShardStateEntry>& entries);

// Collective: every rank's bytes, as uint8 CPU tensors indexed by rank, on `to`; an empty
// list elsewhere. The collectives run on tensors of group.device().
std::vector<Tensor> gather_bytes(ProcessGroup& group, const std::vector<uint8_t>& bytes, int to);

// Unpacks what rank `from` encoded. Tensors go back to their parameter's device (of
// `params`) when they were on it, else stay on the CPU (Adam's "step"). Throws, naming
// `from`, for a malformed buffer or a parameter index out of range.
std::vector<ShardStateEntry> decode_shard_state(const Tensor& bytes, const std::vector<Tensor>& params, int from);

}  // namespace brisk::dist
