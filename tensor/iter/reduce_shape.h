#pragma once
// The geometry of a reduction over a sorted set of dims, worked out on the host and shared by
// the CPU loop (reduce_loop, tensor/cpu/reduce_loop.h) and the CUDA reduction (cuda/reduce.cu).
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tensor/iter/dims.h"
#include "tensor/tensor.h"

namespace brisk::iter {

constexpr int kMaxReduceOutputs = 2;

// A reduction's dims, split into kept dims (one output element per position) and reduced
// dims; each group without size-1 dims and with mergeable neighbours merged, innermost
// first, strides in bytes. Both groups have at least one dim (of size 1 if need be).
struct ReduceShape {
  int nkept = 0;
  int nreduced = 0;
  int nout = 0;
  int64_t num_outputs = 1;
  int64_t num_reduced = 1;
  int64_t kept_sizes[kMaxDims];
  int64_t kept_in_strides[kMaxDims];
  int64_t kept_out_strides[kMaxReduceOutputs][kMaxDims];
  int64_t red_sizes[kMaxDims];
  int64_t red_strides[kMaxDims];
  const char* in;
  char* out[kMaxReduceOutputs];
};

// `dims` sorted; outputs keepdim-shaped (in's shape with the reduced dims set to 1).
ReduceShape make_reduce_shape(const Tensor& in, const std::vector<int64_t>& dims,
                              std::initializer_list<const Tensor*> outputs);

}  // namespace brisk::iter
