// conv_transpose2d: its forward is conv2d's gradient with respect to the input (the backend's
// conv2d_backward), its input gradient is conv2d, and its weight gradient is conv2d's weight
// gradient with the roles of input and output swapped. Both are differentiable ops, so
// second derivatives work as for conv2d.
#include <algorithm>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "nn/functional/conv2d_backward.h"
#include "nn/functional/conv_transpose_length.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// Checks the operands; returns the output's [H, W].
Pair output_size(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p,
                 Pair output_padding) {
  BRISK_CHECK(input.dim() == 3 || input.dim() == 4,
              "conv_transpose2d: expected a 3-D (unbatched) or 4-D (batched) input, got input {}", input.describe());
  BRISK_CHECK(weight.dim() == 4,
              "conv_transpose2d: expected a 4-D weight [in_channels, out_channels / groups, kH, kW], got {}",
              weight.describe());
  BRISK_CHECK(input.is_floating_point(), "conv_transpose2d: expected a floating point input, got {}", input.describe());
  BRISK_CHECK(input.dtype() == weight.dtype() && (!bias.defined() || bias.dtype() == input.dtype()),
              "conv_transpose2d: input {}, weight {} and bias {} must have the same dtype", input.describe(),
              weight.describe(), bias.describe());
  native::common_device("conv_transpose2d", {input, weight, bias});
  for (int i = 0; i < 2; ++i) {
    BRISK_CHECK(p.stride[i] > 0 && p.dilation[i] > 0 && p.padding[i] >= 0,
                "conv_transpose2d: stride {} and dilation {} must be positive and padding {} non-negative", p.stride,
                p.dilation, p.padding);
    BRISK_CHECK(output_padding[i] >= 0 && (output_padding[i] < p.stride[i] || output_padding[i] < p.dilation[i]),
                "conv_transpose2d: output_padding {} must be non-negative and smaller than either stride {} or "
                "dilation {}",
                output_padding, p.stride, p.dilation);
  }
  const Shape& w = weight.sizes();
  BRISK_CHECK(p.groups > 0 && w[0] % p.groups == 0,
              "conv_transpose2d: groups {} must be positive and divide the {} input channels of weight {}", p.groups,
              w[0], w);
  BRISK_CHECK(input.size(-3) == w[0],
              "conv_transpose2d: input {} should have {} channels (the first dim of weight {}), but got {} channels",
              input.sizes(), w[0], w, input.size(-3));
  BRISK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == w[1] * p.groups),
              "conv_transpose2d: bias {} should have shape [{}] (the output channels: weight {} with groups {})",
              bias.sizes(), w[1] * p.groups, w, p.groups);
  Pair out;
  for (int i = 0; i < 2; ++i) {
    out[i] = conv_transpose_output_length(input.size(i - 2), w[i + 2], p.stride[i], p.padding[i], p.dilation[i],
                                          output_padding[i]);
  }
  BRISK_CHECK(out[0] > 0 && out[1] > 0,
              "conv_transpose2d: input {} with kernel [{}, {}], stride {}, padding {}, dilation {} and output_padding "
              "{} gives an empty output [{}, {}]",
              input.sizes(), w[2], w[3], p.stride, p.padding, p.dilation, output_padding, out[0], out[1]);
  return out;
}

// The transposed convolution without bias into an output of [H, W] = out_hw, which conv2d
// with `p` must map back to input's size.
Tensor transposed(const Tensor& input, const Tensor& weight, const Conv2dParams& p, Pair out_hw) {
  Shape shape = input.sizes();
  const size_t c = shape.size() - 3;
  shape[c] = weight.size(1) * p.groups;
  shape[c + 1] = out_hw[0];
  shape[c + 2] = out_hw[1];
  // conv2d_backward reads only the shape of conv2d's input when it computes grad_input.
  Tensor shape_only = empty(shape, input.options());
  Tensor out = native::conv2d_backward(input, shape_only, weight, p, {true, false, false})[0];
  return record("ConvTranspose2dBackward", out, {input, weight}, {input, weight},
                [p](const BackwardArgs& a) -> TensorList {
                  const Tensor &grad = a.grad(), &input = a.saved[0], &weight = a.saved[1];
                  Tensor grad_input, grad_weight;
                  if (a.needs_grad[0]) {
                    grad_input = conv2d(grad, weight, Tensor(), p.stride, p.padding, p.dilation, p.groups);
                  }
                  if (a.needs_grad[1]) {
                    grad_weight = conv2d_backward(input, grad, weight, p, {false, true, false})[1];
                  }
                  return {grad_input, grad_weight};
                });
}

// The `length` entries from `start` along `dim` of y continued by zeros past its end.
Tensor window_of_zero_extended(const Tensor& y, int64_t dim, int64_t start, int64_t length) {
  const int64_t kept = std::clamp<int64_t>(y.size(dim) - start, 0, length);
  Tensor head = y.narrow(dim, std::min(start, y.size(dim)), kept);
  if (kept == length) return head;
  Shape tail_shape = y.sizes();
  tail_shape[dim] = length - kept;
  return cat({head, zeros(tail_shape, y.options())}, dim);
}

}  // namespace

Tensor conv_transpose2d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, Size2 stride,
                        Size2 padding, Size2 output_padding, int64_t groups, Size2 dilation) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::conv_transpose2d, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  const Conv2dParams p{stride, padding, dilation, groups};
  const Pair out_hw = output_size(input, weight, bias, p, output_padding);
  Tensor out;
  if (output_padding[0] < stride[0] && output_padding[1] < stride[1]) {
    out = transposed(input, weight, p, out_hw);
  } else {
    // An output_padding of a stride or more (allowed below the dilation) makes an output that
    // no conv2d maps back to the input: compute the whole unpadded result, every position
    // that the kernel reaches, and take the output's window of it, zeros past its end.
    const Conv2dParams unpadded{stride, Pair{0, 0}, dilation, groups};
    Pair full_hw;
    for (int i = 0; i < 2; ++i) {
      full_hw[i] = conv_transpose_output_length(input.size(i - 2), weight.size(i + 2), stride[i], 0, dilation[i], 0);
    }
    out = transposed(input, weight, unpadded, full_hw);
    for (int i = 0; i < 2; ++i) out = window_of_zero_extended(out, out.dim() - 2 + i, padding[i], out_hw[i]);
  }
  return bias.defined() ? out + bias.view({bias.size(0), 1, 1}) : out;
}

}  // namespace brisk::nn::functional
