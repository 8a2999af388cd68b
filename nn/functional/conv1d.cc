// conv1d as a conv2d over a height of one: input [N, C, L] -> [N, C, 1, L], weight
// [OC, C / groups, K] -> [OC, C / groups, 1, K]. The views are differentiable, so the
// gradients (and second derivatives) are conv2d's. The 1-D geometry is checked here so that
// errors speak of conv1d's own shapes.
#include "autograd/autocast.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

Tensor conv1d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, int64_t stride, int64_t padding,
              int64_t dilation, int64_t groups) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::conv1d, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  BRISK_CHECK(input.dim() == 2 || input.dim() == 3,
              "conv1d: expected a 2-D (unbatched) or 3-D (batched) input [N, C, L], got input {}", input.describe());
  BRISK_CHECK(weight.dim() == 3,
              "conv1d: expected a 3-D weight [out_channels, in_channels / groups, kernel_size], got {}",
              weight.describe());
  BRISK_CHECK(stride > 0 && dilation > 0 && padding >= 0,
              "conv1d: stride {} and dilation {} must be positive and padding {} non-negative", stride, dilation,
              padding);
  const int64_t out_channels = weight.size(0), channels = input.size(-2), length = input.size(-1);
  BRISK_CHECK(groups > 0 && out_channels % groups == 0,
              "conv1d: groups {} must be positive and divide the {} output channels of weight {}", groups, out_channels,
              weight.sizes());
  BRISK_CHECK(channels == weight.size(1) * groups,
              "conv1d: input {} should have {} channels (weight {} with groups {}), but got {} channels", input.sizes(),
              weight.size(1) * groups, weight.sizes(), groups, channels);
  BRISK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels),
              "conv1d: bias {} should have shape [{}] (the output channels of weight {})", bias.sizes(), out_channels,
              weight.sizes());
  const int64_t out_length = window_output_size(length, weight.size(2), stride, padding, dilation, false);
  BRISK_CHECK(out_length > 0,
              "conv1d: kernel {} with dilation {} does not fit input {} padded by {} (output length would be {})",
              weight.size(2), dilation, input.sizes(), padding, out_length);
  const int64_t height_dim = input.dim() - 1;  // the new dim of size one, before L
  Tensor out = conv2d(input.unsqueeze(height_dim), weight.unsqueeze(2), bias, Size2(1, stride), Size2(0, padding),
                      Size2(1, dilation), groups);
  return out.squeeze(height_dim);
}

}  // namespace brisk::nn::functional
