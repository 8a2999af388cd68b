#pragma once
// The CUDA kernels of fused_bias_leaky_relu (CUDA builds only). Operands are contiguous,
// on the current device, and the launches go to `stream`. T is float or double.
#include <cuda_runtime.h>

#include <cstdint>

namespace brisk::examples {

// out[i] = scale * leaky_relu(x[i] + bias[channel(i)], slope), channel(i) = i / inner % channels.
template <typename T>
void fused_bias_leaky_relu_cuda(const T* x, const T* bias, T* out, int64_t numel, int64_t channels, int64_t inner,
                                T slope, T scale, cudaStream_t stream);

// grad_in[i] = grad[i] * scale * (out[i] > 0 ? 1 : slope).
template <typename T>
void fused_bias_leaky_relu_backward_cuda(const T* grad, const T* out, T* grad_in, int64_t numel, T slope, T scale,
                                         cudaStream_t stream);

}  // namespace brisk::examples
