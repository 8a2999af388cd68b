// conv2d and its gradients: argument and geometry checks, unbatched (CHW) inputs and output
// allocation; the arithmetic is the backend's.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

// Checks the operands and returns the output shape [N, OC, OH, OW] for a 4-D input.
Shape conv2d_output_shape(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  BRISK_CHECK(input.dim() == 3 || input.dim() == 4,
              "conv2d: expected a 3-D (unbatched) or 4-D (batched) input, got input {}", input.describe());
  BRISK_CHECK(weight.dim() == 4, "conv2d: expected a 4-D weight [out_channels, in_channels / groups, kH, kW], got {}",
              weight.describe());
  BRISK_CHECK(input.is_floating_point(), "conv2d: expected a floating point input, got {}", input.describe());
  BRISK_CHECK(input.dtype() == weight.dtype() && (!bias.defined() || bias.dtype() == input.dtype()),
              "conv2d: input {}, weight {} and bias {} must have the same dtype", input.describe(), weight.describe(),
              bias.describe());
  common_device("conv2d", {input, weight, bias});
  for (int i = 0; i < 2; ++i) {
    BRISK_CHECK(p.stride[i] > 0 && p.dilation[i] > 0 && p.padding[i] >= 0,
                "conv2d: stride {} and dilation {} must be positive and padding {} non-negative", p.stride, p.dilation,
                p.padding);
  }
  const Shape& w = weight.sizes();
  int64_t channels = input.size(-3);
  BRISK_CHECK(p.groups > 0 && w[0] % p.groups == 0,
              "conv2d: groups {} must be positive and divide the {} output channels of weight {}", p.groups, w[0], w);
  BRISK_CHECK(channels == w[1] * p.groups,
              "conv2d: input {} should have {} channels (weight {} with groups {}), but got {} channels", input.sizes(),
              w[1] * p.groups, w, p.groups, channels);
  BRISK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == w[0]),
              "conv2d: bias {} should have shape [{}] (the output channels of weight {})", bias.sizes(), w[0], w);
  int64_t h = input.size(-2), width = input.size(-1);
  int64_t oh = window_output_size(h, w[2], p.stride[0], p.padding[0], p.dilation[0], false);
  int64_t ow = window_output_size(width, w[3], p.stride[1], p.padding[1], p.dilation[1], false);
  BRISK_CHECK(oh > 0 && ow > 0,
              "conv2d: kernel [{}, {}] with dilation {} does not fit input {} padded by {} (output would be [{}, {}])",
              w[2], w[3], p.dilation, input.sizes(), p.padding, oh, ow);
  int64_t n = input.dim() == 4 ? input.size(0) : 1;
  return {n, w[0], oh, ow};
}

Tensor batched(const Tensor& t) { return t.dim() == 3 ? unsqueeze(t, 0) : t; }

// The layout a convolution runs in and writes its output in, as PyTorch decides it for
// oneDNN and cuDNN: channels_last when the (batched) input or the weight suggests it.
MemoryFormat conv_memory_format(const Tensor& batched_input, const Tensor& weight) {
  return batched_input.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                 weight.suggest_memory_format() == MemoryFormat::ChannelsLast
             ? MemoryFormat::ChannelsLast
             : MemoryFormat::Contiguous;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& params) {
  Shape out_shape = conv2d_output_shape(input, weight, bias, params);
  const MemoryFormat format = conv_memory_format(batched(input), weight);
  Tensor x = contiguous(batched(input), format);
  Tensor out = empty(out_shape, x.options().memory_format(format));
  if (out.numel() > 0) {
    backend_for(x.device())
        .conv2d(out, x, contiguous(weight, format), bias.defined() ? contiguous(bias) : Tensor(), params);
  }
  return input.dim() == 3 ? squeeze(out, 0) : out;
}

std::array<Tensor, 3> conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Conv2dParams& params, std::array<bool, 3> need) {
  Shape out_shape = conv2d_output_shape(input, weight, Tensor(), params);
  const MemoryFormat format = conv_memory_format(batched(input), weight);
  Tensor x = contiguous(batched(input), format);
  Tensor g = batched(grad_out);
  BRISK_CHECK(g.sizes() == out_shape, "conv2d_backward: gradient {} does not match the output shape {}",
              grad_out.describe(), out_shape);
  Device device = common_device("conv2d_backward", {grad_out, input, weight});
  g = contiguous(to(g, device, x.dtype()), format);
  TensorOptions options = TensorOptions(x.dtype()).device(device);
  Tensor grad_input = need[0] ? empty(x.sizes(), options.memory_format(format)) : Tensor();
  Tensor grad_weight = need[1] ? empty(weight.sizes(), options.memory_format(format)) : Tensor();
  Tensor grad_bias = need[2] ? empty({weight.size(0)}, options) : Tensor();
  if (need[0] || need[1] || need[2]) {
    backend_for(device).conv2d_backward(grad_input, grad_weight, grad_bias, g, x, contiguous(weight, format), params);
  }
  if (need[0] && input.dim() == 3) grad_input = squeeze(grad_input, 0);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace brisk::native
