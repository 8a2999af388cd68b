#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

Tensor linear(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::linear, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  BRISK_CHECK(weight.dim() == 2, "linear: expected a 2-D weight [out_features, in_features], got {}",
              weight.describe());
  BRISK_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1),
              "linear: input {} should have {} features in its last dim (weight {})", input.describe(), weight.size(1),
              weight.sizes());
  BRISK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
              "linear: bias {} should have shape [{}] (weight {})", bias.describe(), weight.size(0), weight.sizes());
  // The common 2-D case is one fused GEMM with the bias as its initial value.
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  Tensor out = matmul(input, weight.t());
  return bias.defined() ? out + bias : out;
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) { return input.flatten(start_dim, end_dim); }

}  // namespace brisk::nn::functional
