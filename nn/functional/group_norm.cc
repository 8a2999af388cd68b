// group_norm, composed from differentiable ops (so it runs on every device and has second
// derivatives): the statistics of each (sample, group) over its channels and positions, the
// per-channel affine after.
#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

Tensor group_norm(const Tensor& input_in, int64_t num_groups, const Tensor& weight_in, const Tensor& bias_in,
                  double eps) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::group_norm, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  BRISK_CHECK(input.dim() >= 2, "group_norm: expected an input [N, C, *] with at least 2 dims, got {}",
              input.describe());
  const int64_t n = input.size(0), channels = input.size(1);
  BRISK_CHECK(num_groups > 0 && channels % num_groups == 0,
              "group_norm: num_groups {} must be positive and divide the {} channels of input {}", num_groups, channels,
              input.sizes());
  auto check_channel_vector = [&](const char* what, const Tensor& t) {
    BRISK_CHECK(!t.defined() || (t.dim() == 1 && t.size(0) == channels),
                "group_norm: {} {} should have shape [{}] (the channels of input {})", what, t.describe(), channels,
                input.sizes());
  };
  check_channel_vector("weight", weight);
  check_channel_vector("bias", bias);
  // [N, G, C / G * positions]: one row of statistics per sample and group.
  Tensor grouped = input.reshape({n, num_groups, -1});
  Tensor mean = grouped.mean({2}, true);
  Tensor var = grouped.var({2}, /*correction=*/0, true);
  Tensor y = ((grouped - mean) * rsqrt(var + eps)).reshape(input.sizes());
  Shape channel_shape(input.dim() - 1, 1);  // [C, 1, ...]: a per-channel vector against [N, C, *]
  channel_shape[0] = channels;
  if (weight.defined()) y = y * weight.view(channel_shape);
  if (bias.defined()) y = y + bias.view(channel_shape);
  return y;
}

}  // namespace brisk::nn::functional
