#pragma once
// The geometry of operands walked together elementwise, worked out on the host and shared by
// the CPU loop (cpu_kernel, tensor/cpu/loops.h) and the CUDA launch (gpu_kernel,
// cuda/loops.cu.h): size-1 dims dropped, dims ordered by stride (the output's first) and
// merged where they are contiguous with each other in every operand.
#include <cstdint>
#include <initializer_list>

#include "tensor/iter/dims.h"
#include "tensor/tensor.h"

namespace brisk::iter {

constexpr int kMaxOperands = 4;

// Dim 0 is the innermost; strides are in bytes; operand 0 is the output.
struct LoopShape {
  int ndim = 0;
  int noperands = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  char* data[kMaxOperands];
};

// Operands must all have the shape of the first. `op` names the caller in errors.
LoopShape make_loop_shape(std::initializer_list<const Tensor*> operands, const char* op);

}  // namespace brisk::iter
