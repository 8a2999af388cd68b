#include "examples/extending/fused_bias_leaky_relu.h"

#include "autograd/ops.h"
#include "tensor/dispatch.h"
#include "tensor/parallel.h"

#ifdef BRISK_WITH_CUDA
#include "cuda/device.h"
#include "cuda/stream.h"
#include "examples/extending/fused_bias_leaky_relu_kernels.h"
#endif

namespace brisk::examples {
namespace {

constexpr int64_t kGrain = 32768;

#ifndef BRISK_WITH_CUDA
// CUDA tensors exist only in CUDA builds; this names the op if one shows up anyway.
[[noreturn]] void no_cuda(const Tensor& t) {
  BRISK_FAIL("fused_bias_leaky_relu: {} needs a build with CUDA", t.describe());
}
#endif

// The kernels below read host pointers unless the tensor is on CUDA: any other device (the
// simulated one included) has no kernel here, and host code must not touch its memory.
void check_has_kernel(const Tensor& t) {
  BRISK_CHECK(t.is_cpu() || t.is_cuda(), "fused_bias_leaky_relu: no kernel for {} (CPU and CUDA only)", t.describe());
}

Tensor forward_kernel(const Tensor& x, const Tensor& bias, double slope, double scale) {
  BRISK_CHECK(x.dim() >= 2 && bias.dim() == 1 && bias.size(0) == x.size(1),
              "fused_bias_leaky_relu: expected x [N, C, ...] and bias [C], got x {} and bias {}", x.describe(),
              bias.describe());
  BRISK_CHECK(x.dtype() == bias.dtype() && x.device() == bias.device(),
              "fused_bias_leaky_relu: x {} and bias {} must share dtype and device", x.describe(), bias.describe());
  check_has_kernel(x);
  Tensor in = x.contiguous(), b = bias.contiguous();
  Tensor out = empty_like(in);
  const int64_t numel = in.numel(), channels = in.size(1);
  const int64_t inner = channels == 0 || numel == 0 ? 1 : numel / (in.size(0) * channels);
  dispatch(TypeList<float, double>{}, in.dtype(), "fused_bias_leaky_relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *px = in.data_ptr<T>(), *pb = b.data_ptr<T>();
    T* po = out.data_ptr<T>();
    const T s = static_cast<T>(slope), k = static_cast<T>(scale);
    if (in.is_cuda()) {
#ifdef BRISK_WITH_CUDA
      const int device = in.device().index;
      cuda::DeviceGuard guard(device);
      fused_bias_leaky_relu_cuda<T>(px, pb, po, numel, channels, inner, s, k, cuda::current_stream(device));
      return;
#else
      no_cuda(in);
#endif
    }
    parallel_for(0, numel, kGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        T v = px[i] + pb[(i / inner) % channels];
        po[i] = k * (v > T(0) ? v : v * s);
      }
    });
  });
  return out;
}

Tensor backward_kernel(const Tensor& grad, const Tensor& out, double slope, double scale) {
  check_has_kernel(out);
  BRISK_CHECK(grad.device() == out.device(),
              "fused_bias_leaky_relu_backward: gradient {} and output {} must share a device", grad.describe(),
              out.describe());
  Tensor g = grad.contiguous();
  Tensor grad_in = empty_like(out);
  const int64_t numel = out.numel();
  dispatch(TypeList<float, double>{}, out.dtype(), "fused_bias_leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *pg = g.data_ptr<T>(), *py = out.data_ptr<T>();
    T* pi = grad_in.data_ptr<T>();
    const T s = static_cast<T>(slope), k = static_cast<T>(scale);
    if (out.is_cuda()) {
#ifdef BRISK_WITH_CUDA
      const int device = out.device().index;
      cuda::DeviceGuard guard(device);
      fused_bias_leaky_relu_backward_cuda<T>(pg, py, pi, numel, s, k, cuda::current_stream(device));
      return;
#else
      no_cuda(out);
#endif
    }
    parallel_for(0, numel, kGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) pi[i] = pg[i] * k * (py[i] > T(0) ? T(1) : s);
    });
  });
  return grad_in;
}

}  // namespace

Tensor FusedBiasLeakyReLUFunction::forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& bias,
                                           double negative_slope, double scale) {
  BRISK_CHECK(scale > 0, "fused_bias_leaky_relu: scale must be positive, got {}", scale);
  Tensor out = forward_kernel(x, bias, negative_slope, scale);
  // With a positive scale the output is positive exactly where x + bias is, so the output
  // alone decides the slope in backward.
  ctx->save_for_backward({out});
  ctx->saved_data["negative_slope"] = negative_slope;
  ctx->saved_data["scale"] = scale;
  return out;
}

autograd::TensorList FusedBiasLeakyReLUFunction::backward(autograd::AutogradContext* ctx,
                                                          autograd::TensorList grad_outputs) {
  Tensor out = ctx->get_saved_variables()[0];
  Tensor grad_x = backward_kernel(grad_outputs[0], out, ctx->saved_data["negative_slope"].toDouble(),
                                  ctx->saved_data["scale"].toDouble());
  Tensor grad_bias;
  if (ctx->needs_input_grad(1)) {
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < grad_x.dim(); ++d) dims.push_back(d);
    grad_bias = grad_x.sum(dims);
  }
  return {grad_x, grad_bias, Tensor(), Tensor()};
}

Tensor fused_bias_leaky_relu(const Tensor& x, const Tensor& bias, double negative_slope, double scale) {
  return FusedBiasLeakyReLUFunction::apply(x, bias, negative_slope, scale);
}

FusedBiasLeakyReLUImpl::FusedBiasLeakyReLUImpl(int64_t channels, double negative_slope_, double scale_)
    : negative_slope(negative_slope_), scale(scale_) {
  bias = register_parameter("bias", zeros({channels}));
}

}  // namespace brisk::examples
