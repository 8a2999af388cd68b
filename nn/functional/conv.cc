// The differentiable conv2d, and conv1d through it. conv2d's backward is itself a recorded op
// whose own backward is written with conv2d and conv2d_backward, so second derivatives
// (create_graph) work: grad_input and grad_weight are bilinear in (grad_out, weight) and
// (grad_out, input), and each adjoint is a forward convolution or one of those two gradients
// again.
#include <array>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "nn/functional/conv2d_backward.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

std::array<Tensor, 3> conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Conv2dParams& p, std::array<bool, 3> need) {
  std::array<Tensor, 3> grads = native::conv2d_backward(grad_out, input, weight, p, need);
  // Only the computed gradients become outputs of the node; `slots` maps them back.
  TensorList outputs;
  std::vector<int> slots;
  for (int i = 0; i < 3; ++i) {
    if (need[i]) {
      outputs.push_back(grads[i]);
      slots.push_back(i);
    }
  }
  outputs = record("Conv2dBackwardBackward", outputs, {grad_out, input, weight}, {grad_out, input, weight},
                   [p, slots](const BackwardArgs& a) -> TensorList {
                     std::array<Tensor, 3> gg;  // by slot: grad_input, grad_weight, grad_bias
                     for (size_t i = 0; i < slots.size(); ++i) gg[slots[i]] = a.grads[i];
                     const Tensor &grad_out = a.saved[0], &input = a.saved[1], &weight = a.saved[2];
                     Tensor d_grad_out, d_input, d_weight;
                     if (a.needs_grad[0]) {
                       if (gg[0].defined() || gg[2].defined()) {
                         Tensor gg_input = gg[0].defined() ? gg[0] : zeros_like(input);
                         d_grad_out = conv2d(gg_input, weight, gg[2], p.stride, p.padding, p.dilation, p.groups);
                       }
                       if (gg[1].defined()) {
                         Tensor term = conv2d(input, gg[1], Tensor(), p.stride, p.padding, p.dilation, p.groups);
                         d_grad_out = d_grad_out.defined() ? d_grad_out + term : term;
                       }
                     }
                     if (a.needs_grad[1] && gg[1].defined()) {
                       d_input = conv2d_backward(grad_out, input, gg[1], p, {true, false, false})[0];
                     }
                     if (a.needs_grad[2] && gg[0].defined()) {
                       d_weight = conv2d_backward(grad_out, gg[0], weight, p, {false, true, false})[1];
                     }
                     return {d_grad_out, d_input, d_weight};
                   });
  for (size_t i = 0; i < slots.size(); ++i) grads[slots[i]] = outputs[i];
  return grads;
}

Tensor conv2d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, Size2 stride, Size2 padding,
              Size2 dilation, int64_t groups) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::conv2d, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  Conv2dParams p{stride, padding, dilation, groups};
  Tensor out = native::conv2d(input, weight, bias, p);
  return record("Conv2dBackward", out, {input, weight, bias}, {input, weight}, [p](const BackwardArgs& a) {
    std::array<Tensor, 3> grads =
        conv2d_backward(a.grad(), a.saved[0], a.saved[1], p, {a.needs_grad[0], a.needs_grad[1], a.needs_grad[2]});
    return TensorList{grads[0], grads[1], grads[2]};
  });
}

// conv1d as a conv2d over a height of one: input [N, C, L] -> [N, C, 1, L], weight
// [OC, C / groups, K] -> [OC, C / groups, 1, K]. The views are differentiable, so the
// gradients (and second derivatives) are conv2d's. The 1-D geometry is checked here so that
// errors speak of conv1d's own shapes.
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
