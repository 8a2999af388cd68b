// Extending Brisk, way (c): the CUDA kernels of the example's ops, registered from the
// translation unit that compiles them (fused_bias_leaky_relu.cc declares the ops). One thread
// per element; the math is fused_bias_leaky_relu_kernels.h's, shared with the CPU loop.
#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/stream.h"
#include "examples/extending/fused_bias_leaky_relu_kernels.h"
#include "library/library.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"

namespace brisk::examples {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t numel) { return static_cast<int>((numel + kThreads - 1) / kThreads); }

template <typename T>
__global__ void forward_kernel(const T* x, const T* bias, T* out, int64_t numel, int64_t channels, int64_t inner,
                               T slope, T scale) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  out[i] = bias_leaky_relu(x[i], bias[channel_of(i, channels, inner)], slope, scale);
}

template <typename T>
__global__ void backward_kernel(const T* grad, const T* out, T* grad_in, int64_t numel, T slope, T scale) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  grad_in[i] = bias_leaky_relu_backward(grad[i], out[i], slope, scale);
}

// The kernels run on the tensors' device (cuda::DeviceGuard) and its current stream, ordered
// with the rest of Brisk's work there.
Tensor forward_cuda(const Tensor& x, const Tensor& bias, double slope, double scale) {
  Tensor in = x.contiguous(), b = bias.contiguous();
  Tensor out = native::empty_like(in);
  const int64_t numel = in.numel(), channels = in.size(1);
  if (numel == 0) return out;
  const int64_t inner = numel / (in.size(0) * channels);
  const int device = in.device().index;
  cuda::DeviceGuard guard(device);
  dispatch(TypeList<float, double>{}, in.dtype(), "fused_bias_leaky_relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_kernel<T><<<blocks_for(numel), kThreads, 0, cuda::current_stream(device)>>>(
        in.data_ptr<T>(), b.data_ptr<T>(), out.data_ptr<T>(), numel, channels, inner, static_cast<T>(slope),
        static_cast<T>(scale));
    BRISK_CUDA_CHECK_LAUNCH();
  });
  return out;
}

Tensor backward_cuda(const Tensor& grad, const Tensor& out, double slope, double scale) {
  Tensor g = grad.contiguous(), y = out.contiguous();
  Tensor grad_in = native::empty_like(y);
  const int64_t numel = y.numel();
  if (numel == 0) return grad_in;
  const int device = y.device().index;
  cuda::DeviceGuard guard(device);
  dispatch(TypeList<float, double>{}, y.dtype(), "fused_bias_leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_kernel<T><<<blocks_for(numel), kThreads, 0, cuda::current_stream(device)>>>(
        g.data_ptr<T>(), y.data_ptr<T>(), grad_in.data_ptr<T>(), numel, static_cast<T>(slope), static_cast<T>(scale));
    BRISK_CUDA_CHECK_LAUNCH();
  });
  return grad_in;
}

}  // namespace
}  // namespace brisk::examples

BRISK_LIBRARY_IMPL(examples, CUDA, m) {
  m.impl("fused_bias_leaky_relu", &brisk::examples::forward_cuda);
  m.impl("fused_bias_leaky_relu_backward", &brisk::examples::backward_cuda);
}
