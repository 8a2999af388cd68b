// Extending Brisk, way (c): the example's ops, declared once, and their kernels for the CPU and
// the simulated device (the CUDA kernels are registered by fused_bias_leaky_relu.cu).
#include "autograd/ops.h"
#include "examples/extending/fused_bias_leaky_relu_kernels.h"
#include "library/library.h"
#include "tensor/dispatch.h"
#include "tensor/parallel.h"

// The ops, in PyTorch's schema syntax (library/schema.h).
BRISK_LIBRARY(examples, m) {
  m.def("fused_bias_leaky_relu(Tensor x, Tensor bias, float negative_slope, float scale) -> Tensor");
  m.def("fused_bias_leaky_relu_backward(Tensor grad, Tensor out, float negative_slope, float scale) -> Tensor");
}

namespace brisk::examples {
namespace {

constexpr int64_t kGrain = 32768;

// The CPU kernels. The op has checked that the tensors share a device and a dtype; the
// Function has checked the shapes.
Tensor forward_cpu(const Tensor& x, const Tensor& bias, double slope, double scale) {
  Tensor in = x.contiguous(), b = bias.contiguous();
  Tensor out = empty_like(in);
  const int64_t numel = in.numel(), channels = in.size(1);
  const int64_t inner = channels == 0 || numel == 0 ? 1 : numel / (in.size(0) * channels);
  dispatch(TypeList<float, double>{}, in.dtype(), "fused_bias_leaky_relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *px = in.data_ptr<T>(), *pb = b.data_ptr<T>();
    T* po = out.data_ptr<T>();
    const T s = static_cast<T>(slope), k = static_cast<T>(scale);
    parallel_for(0, numel, kGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) po[i] = bias_leaky_relu(px[i], pb[channel_of(i, channels, inner)], s, k);
    });
  });
  return out;
}

Tensor backward_cpu(const Tensor& grad, const Tensor& out, double slope, double scale) {
  Tensor g = grad.contiguous(), y = out.contiguous();
  Tensor grad_in = empty_like(y);
  const int64_t numel = y.numel();
  dispatch(TypeList<float, double>{}, y.dtype(), "fused_bias_leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *pg = g.data_ptr<T>(), *py = y.data_ptr<T>();
    T* pi = grad_in.data_ptr<T>();
    const T s = static_cast<T>(slope), k = static_cast<T>(scale);
    parallel_for(0, numel, kGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) pi[i] = bias_leaky_relu_backward(pg[i], py[i], s, k);
    });
  });
  return grad_in;
}

}  // namespace
}  // namespace brisk::examples

BRISK_LIBRARY_IMPL(examples, CPU, m) {
  m.impl("fused_bias_leaky_relu", &brisk::examples::forward_cpu);
  m.impl("fused_bias_leaky_relu_backward", &brisk::examples::backward_cpu);
}

// The simulated device runs the CPU kernels on its memory: what lets the device path (the
// right kernel per device, results on the inputs' device) be tested without a GPU.
BRISK_LIBRARY_IMPL(examples, Sim, m) {
  m.impl("fused_bias_leaky_relu", brisk::library::sim_kernel_from_cpu(&brisk::examples::forward_cpu));
  m.impl("fused_bias_leaky_relu_backward", brisk::library::sim_kernel_from_cpu(&brisk::examples::backward_cpu));
}
