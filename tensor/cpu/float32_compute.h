#pragma once
// bfloat16/float16 operands for CPU kernels that compute in float32 only (GEMM, convolution,
// pooling): the kernel runs on float32 copies and its results are rounded back, as PyTorch's
// CPU kernels accumulate 16-bit values in float32.
//
//   if (is_reduced_float(input.dtype())) {
//     Float32Results results({out});
//     conv2d(results[0], as_float32(input), as_float32(weight), as_float32(bias), params);
//     results.write_back();
//     return;
//   }
#include <vector>

#include "tensor/tensor.h"

namespace brisk::cpu {

// A float32 copy of a bfloat16/float16 tensor; any other tensor (undefined included) as is.
Tensor as_float32(const Tensor& t);

// A float32 stand-in for each bfloat16/float16 output (holding its values, for kernels that
// accumulate into their output); other outputs (undefined, int64 indices) are themselves.
class Float32Results {
 public:
  explicit Float32Results(std::vector<Tensor> outputs);
  const Tensor& operator[](size_t i) const { return stand_ins_[i]; }
  // Rounds each stand-in into its output.
  void write_back();

 private:
  std::vector<Tensor> outputs_;
  std::vector<Tensor> stand_ins_;
};

}  // namespace brisk::cpu
