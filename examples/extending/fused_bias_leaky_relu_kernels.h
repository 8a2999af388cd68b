#pragma once
// The math of fused_bias_leaky_relu, once, for the CPU loop (fused_bias_leaky_relu.cc) and
// the CUDA kernel (fused_bias_leaky_relu.cu): BRISK_INLINE makes them host and device
// functions under nvcc, plain inline functions elsewhere.
#include <cstdint>

#include "tensor/macros.h"

namespace brisk::examples {

// The channel of element i of a contiguous [N, C, inner...] tensor.
BRISK_INLINE int64_t channel_of(int64_t i, int64_t channels, int64_t inner) { return i / inner % channels; }

// scale * leaky_relu(x + bias, slope)
template <typename T>
BRISK_INLINE T bias_leaky_relu(T x, T bias, T slope, T scale) {
  T v = x + bias;
  return scale * (v > T(0) ? v : v * slope);
}

// The gradient of bias_leaky_relu at x, from its output: with a positive scale the output is
// positive exactly where x + bias is.
template <typename T>
BRISK_INLINE T bias_leaky_relu_backward(T grad, T out, T slope, T scale) {
  return grad * scale * (out > T(0) ? T(1) : slope);
}

}  // namespace brisk::examples
