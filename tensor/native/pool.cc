// Max, average and adaptive average pooling and their gradients: argument and geometry
// checks, unbatched (CHW) inputs and output allocation; the arithmetic is the backend's.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

void check_input(const char* op, const Tensor& input) {
  BRISK_CHECK(input.dim() == 3 || input.dim() == 4,
              "{}: expected a 3-D (unbatched) or 4-D (batched) input, got input {}", op, input.describe());
  BRISK_CHECK(input.is_floating_point(), "{}: expected a floating point input, got {}", op, input.describe());
  BRISK_CHECK(input.size(-1) > 0 && input.size(-2) > 0 && input.size(-3) > 0,
              "{}: expected an input with non-zero channels, height and width, got {}", op, input.describe());
}

// Checks the window and returns the output shape [N, C, OH, OW]. Only max pooling dilates.
Shape pool2d_output_shape(const char* op, const Tensor& input, const Pool2dParams& p, bool dilated) {
  check_input(op, input);
  for (int i = 0; i < 2; ++i) {
    BRISK_CHECK(p.kernel[i] > 0 && p.stride[i] > 0 && p.dilation[i] > 0,
                "{}: kernel_size {}, stride {} and dilation {} must be positive", op, p.kernel, p.stride, p.dilation);
    int64_t effective = dilated ? (p.kernel[i] - 1) * p.dilation[i] + 1 : p.kernel[i];
    BRISK_CHECK(p.padding[i] >= 0 && p.padding[i] <= effective / 2,
                "{}: padding {} should be non-negative and at most half of the kernel size {} (dilation {})", op,
                p.padding, p.kernel, dilated ? p.dilation : Pair{1, 1});
  }
  BRISK_CHECK(p.divisor_override >= 0, "{}: divisor_override must be positive, got {}", op, p.divisor_override);
  int64_t h = input.size(-2), w = input.size(-1);
  Pair dilation = dilated ? p.dilation : Pair{1, 1};
  int64_t oh = window_output_size(h, p.kernel[0], p.stride[0], p.padding[0], dilation[0], p.ceil_mode);
  int64_t ow = window_output_size(w, p.kernel[1], p.stride[1], p.padding[1], dilation[1], p.ceil_mode);
  BRISK_CHECK(oh > 0 && ow > 0,
              "{}: input {} with kernel_size {}, stride {}, padding {} and dilation {} gives an empty output "
              "[{}, {}]",
              op, input.sizes(), p.kernel, p.stride, p.padding, dilation, oh, ow);
  int64_t n = input.dim() == 4 ? input.size(0) : 1;
  return {n, input.size(-3), oh, ow};
}

// The memory format pooling computes in: channels_last for a 4-D input that suggests it (its
// output, indices and gradient are then channels_last too, as PyTorch's), else contiguous.
MemoryFormat pool_format(const Tensor& input) {
  return input.dim() == 4 && input.suggest_memory_format() == MemoryFormat::ChannelsLast ? MemoryFormat::ChannelsLast
                                                                                         : MemoryFormat::Contiguous;
}

// `t` as a batch [N, C, H, W] in `input`'s pool_format.
Tensor as_batch(const Tensor& t, const Tensor& input) {
  return t.dim() == 3 ? contiguous(unsqueeze(t, 0)) : contiguous(t, pool_format(input));
}
// The shape of `t` as a batch.
Shape batch_shape(const Tensor& t) { return t.dim() == 3 ? Shape{1, t.size(0), t.size(1), t.size(2)} : t.sizes(); }
// An output of `shape` for a pooling op on `input`.
Tensor new_batch(const Shape& shape, const Tensor& input, DType dtype) {
  return empty(shape, TensorOptions(dtype).device(input.device()).memory_format(pool_format(input)));
}
// `t` without the batch dim of an unbatched input.
Tensor unbatch_like(const Tensor& t, const Tensor& input) { return input.dim() == 3 ? squeeze(t, 0) : t; }

// The gradient of a pooling op as a batch, checked against the output shape.
Tensor batch_grad(const char* op, const Tensor& grad_out, const Tensor& input, const Shape& out_shape) {
  Tensor g = grad_out.dim() == 3 ? unsqueeze(grad_out, 0) : grad_out;
  BRISK_CHECK(g.sizes() == out_shape, "{}: gradient {} does not match the output shape {}", op, grad_out.describe(),
              out_shape);
  Device device = common_device(op, {grad_out, input});
  return as_batch(to(g, device, input.dtype()), input);
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Pool2dParams& params) {
  Shape out_shape = pool2d_output_shape("max_pool2d", input, params, true);
  Tensor x = as_batch(input, input);
  Tensor out = new_batch(out_shape, input, input.dtype());
  Tensor indices = new_batch(out_shape, input, kInt64);
  if (out.numel() > 0) backend_for(x.device()).max_pool2d(out, indices, x, params);
  return {unbatch_like(out, input), unbatch_like(indices, input)};
}

Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& indices) {
  check_input("max_pool2d_backward", input);
  BRISK_CHECK(indices.dtype() == kInt64 && indices.sizes() == grad_out.sizes(),
              "max_pool2d_backward: indices {} should be int64 with the gradient's shape {}", indices.describe(),
              grad_out.sizes());
  common_device("max_pool2d_backward", {grad_out, input, indices});
  Tensor idx = as_batch(to(indices, input.device(), kInt64), input);
  Tensor g = batch_grad("max_pool2d_backward", grad_out, input, idx.sizes());
  Tensor grad_input = new_batch(batch_shape(input), input, input.dtype());
  backend_for(input.device()).max_pool2d_backward(grad_input, g, idx);
  return unbatch_like(grad_input, input);
}

Tensor avg_pool2d(const Tensor& input, const Pool2dParams& params) {
  Shape out_shape = pool2d_output_shape("avg_pool2d", input, params, false);
  Tensor x = as_batch(input, input);
  Tensor out = new_batch(out_shape, input, input.dtype());
  if (out.numel() > 0) backend_for(x.device()).avg_pool2d(out, x, params);
  return unbatch_like(out, input);
}

Tensor avg_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Pool2dParams& params) {
  Shape out_shape = pool2d_output_shape("avg_pool2d_backward", input, params, false);
  Tensor g = batch_grad("avg_pool2d_backward", grad_out, input, out_shape);
  Tensor grad_input = new_batch(batch_shape(input), input, input.dtype());
  backend_for(input.device()).avg_pool2d_backward(grad_input, g, params);
  return unbatch_like(grad_input, input);
}

Tensor adaptive_avg_pool2d(const Tensor& input, Pair output_size) {
  check_input("adaptive_avg_pool2d", input);
  BRISK_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "adaptive_avg_pool2d: output_size {} must be non-negative (input {})", output_size, input.sizes());
  Tensor x = as_batch(input, input);
  Tensor out = new_batch({x.size(0), x.size(1), output_size[0], output_size[1]}, input, input.dtype());
  if (out.numel() > 0) backend_for(x.device()).adaptive_avg_pool2d(out, x);
  return unbatch_like(out, input);
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& input) {
  check_input("adaptive_avg_pool2d_backward", input);
  BRISK_CHECK(grad_out.dim() == input.dim() && grad_out.size(-3) == input.size(-3) &&
                  (input.dim() == 3 || grad_out.size(0) == input.size(0)),
              "adaptive_avg_pool2d_backward: gradient {} does not fit input {}", grad_out.describe(), input.describe());
  Tensor g = batch_grad("adaptive_avg_pool2d_backward", grad_out, input,
                        batch_shape(grad_out));
  Tensor grad_input = new_batch(batch_shape(input), input, input.dtype());
  backend_for(input.device()).adaptive_avg_pool2d_backward(grad_input, g);
  return unbatch_like(grad_input, input);
}

}  // namespace brisk::native
