#include "examples/extending/fused_bias_leaky_relu.h"

#include "autograd/ops.h"
#include "library/library.h"

namespace brisk::examples {
namespace {

// The C++ signature of both ops (fused_bias_leaky_relu_ops.cc declares them).
using OpSignature = Tensor(const Tensor&, const Tensor&, double, double);

}  // namespace

Tensor FusedBiasLeakyReLUFunction::forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& bias,
                                           double negative_slope, double scale) {
  BRISK_CHECK(x.dim() >= 2 && bias.dim() == 1 && bias.size(0) == x.size(1),
              "fused_bias_leaky_relu: expected x [N, C, ...] and bias [C], got x {} and bias {}", x.describe(),
              bias.describe());
  BRISK_CHECK(scale > 0, "fused_bias_leaky_relu: scale must be positive, got {}", scale);
  static const auto op = library::find_op<OpSignature>("examples::fused_bias_leaky_relu");
  Tensor out = op(x, bias, negative_slope, scale);
  // The output alone decides the slope in backward (bias_leaky_relu_backward).
  ctx->save_for_backward({out});
  ctx->saved_data["negative_slope"] = negative_slope;
  ctx->saved_data["scale"] = scale;
  return out;
}

autograd::TensorList FusedBiasLeakyReLUFunction::backward(autograd::AutogradContext* ctx,
                                                          autograd::TensorList grad_outputs) {
  static const auto op = library::find_op<OpSignature>("examples::fused_bias_leaky_relu_backward");
  Tensor out = ctx->get_saved_variables()[0];
  Tensor grad_x =
      op(grad_outputs[0], out, ctx->saved_data["negative_slope"].toDouble(), ctx->saved_data["scale"].toDouble());
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
