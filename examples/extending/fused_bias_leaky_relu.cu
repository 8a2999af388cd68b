// Extending Brisk, way (c): the device side of a custom op. One thread per element; the
// host code in fused_bias_leaky_relu.cc checks the operands and picks the stream.
#include "cuda/error.h"
#include "examples/extending/fused_bias_leaky_relu_kernels.h"

namespace brisk::examples {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t numel) { return static_cast<int>((numel + kThreads - 1) / kThreads); }

template <typename T>
__global__ void forward_kernel(const T* x, const T* bias, T* out, int64_t numel, int64_t channels, int64_t inner,
                               T slope, T scale) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  T v = x[i] + bias[(i / inner) % channels];
  out[i] = scale * (v > T(0) ? v : v * slope);
}

template <typename T>
__global__ void backward_kernel(const T* grad, const T* out, T* grad_in, int64_t numel, T slope, T scale) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  grad_in[i] = grad[i] * scale * (out[i] > T(0) ? T(1) : slope);
}

}  // namespace

template <typename T>
void fused_bias_leaky_relu_cuda(const T* x, const T* bias, T* out, int64_t numel, int64_t channels, int64_t inner,
                                T slope, T scale, cudaStream_t stream) {
  if (numel == 0) return;
  forward_kernel<T><<<blocks_for(numel), kThreads, 0, stream>>>(x, bias, out, numel, channels, inner, slope, scale);
  BRISK_CUDA_CHECK_LAUNCH();
}

template <typename T>
void fused_bias_leaky_relu_backward_cuda(const T* grad, const T* out, T* grad_in, int64_t numel, T slope, T scale,
                                         cudaStream_t stream) {
  if (numel == 0) return;
  backward_kernel<T><<<blocks_for(numel), kThreads, 0, stream>>>(grad, out, grad_in, numel, slope, scale);
  BRISK_CUDA_CHECK_LAUNCH();
}

template void fused_bias_leaky_relu_cuda<float>(const float*, const float*, float*, int64_t, int64_t, int64_t, float,
                                                float, cudaStream_t);
template void fused_bias_leaky_relu_cuda<double>(const double*, const double*, double*, int64_t, int64_t, int64_t,
                                                 double, double, cudaStream_t);
template void fused_bias_leaky_relu_backward_cuda<float>(const float*, const float*, float*, int64_t, float, float,
                                                         cudaStream_t);
template void fused_bias_leaky_relu_backward_cuda<double>(const double*, const double*, double*, int64_t, double,
                                                          double, cudaStream_t);

}  // namespace brisk::examples
