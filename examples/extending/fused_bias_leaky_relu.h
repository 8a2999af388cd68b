#pragma once
// Extending Brisk, way (c): a layer with its own kernels, one per device type, registered as
// ops (library/library.h) and made differentiable by a custom autograd Function; see
// docs/extending.md.
//
// scale * leaky_relu(x + bias, negative_slope), with bias [C] added along dim 1 of x
// [N, C, *]: StyleGAN's fused bias activation, one pass over memory instead of three.
//
// Its ops, declared in fused_bias_leaky_relu.cc:
//   examples::fused_bias_leaky_relu(Tensor x, Tensor bias, float negative_slope, float scale) -> Tensor
//   examples::fused_bias_leaky_relu_backward(Tensor grad, Tensor out, float negative_slope, float scale) -> Tensor
// with kernels for the CPU and the simulated device (fused_bias_leaky_relu.cc) and, in a CUDA
// build, CUDA (fused_bias_leaky_relu.cu).
#include <cmath>
#include <cstdint>

#include "autograd/function.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::examples {

// float32 or float64, x and bias on one device with a kernel: the CPU, sim:N, or (in a CUDA
// build) a CUDA device.
Tensor fused_bias_leaky_relu(const Tensor& x, const Tensor& bias, double negative_slope = 0.2,
                             double scale = std::sqrt(2.0));

struct FusedBiasLeakyReLUFunction : autograd::Function<FusedBiasLeakyReLUFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& bias, double negative_slope,
                        double scale);
  static autograd::TensorList backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs);
};

class FusedBiasLeakyReLUImpl : public nn::Module {
 public:
  explicit FusedBiasLeakyReLUImpl(int64_t channels, double negative_slope = 0.2, double scale = std::sqrt(2.0));
  Tensor forward(const Tensor& x) override { return fused_bias_leaky_relu(x, bias, negative_slope, scale); }

  Tensor bias;  // [channels], zeros
  double negative_slope;
  double scale;
};

BRISK_MODULE(FusedBiasLeakyReLU);

}  // namespace brisk::examples
