#pragma once
// Extending Brisk, way (c): a layer with its own kernels, a CUDA one and a CPU fallback,
// behind a custom autograd Function; see docs/extending.md.
//
// scale * leaky_relu(x + bias, negative_slope), with bias [C] added along dim 1 of x
// [N, C, *]: StyleGAN's fused bias activation, one pass over memory instead of three.
#include <cmath>
#include <cstdint>

#include "autograd/function.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::examples {

// float32 or float64, on the CPU or (in a CUDA build) a CUDA device.
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
