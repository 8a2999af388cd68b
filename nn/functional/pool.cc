// The differentiable pooling ops. Each backward is linear in the incoming gradient, so it is
// recorded too, with the adjoint as its own backward: gathering at the argmax for max
// pooling, and the forward pooling itself for the averages. Second derivatives therefore work.
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

Pool2dParams pool_params(Size2 kernel_size, const std::optional<Size2>& stride, Size2 padding, Size2 dilation,
                         bool ceil_mode) {
  Pool2dParams p;
  p.kernel = kernel_size;
  p.stride = stride ? stride->pair() : kernel_size.pair();
  p.padding = padding;
  p.dilation = dilation;
  p.ceil_mode = ceil_mode;
  return p;
}

// Each output element picks the input-plane element its index names.
Tensor gather_at_indices(const Tensor& grad_input_like, const Tensor& indices) {
  Tensor picked = gather(grad_input_like.flatten(-2), -1, indices.flatten(-2));
  return picked.view(indices.sizes());
}

Tensor max_pool2d_grad(const Tensor& grad, const Tensor& input, const Tensor& indices) {
  Tensor out = native::max_pool2d_backward(grad, input, indices);
  return record("MaxPool2dBackwardBackward", out, {grad}, {indices},
                [](const BackwardArgs& a) -> TensorList { return {gather_at_indices(a.grad(), a.saved[0])}; });
}

Tensor avg_pool2d_grad(const Tensor& grad, const Tensor& input, const Pool2dParams& p);

Tensor avg_pool2d_impl(const Tensor& input, const Pool2dParams& p) {
  Tensor out = native::avg_pool2d(input, p);
  return record("AvgPool2dBackward", out, {input}, {input},
                [p](const BackwardArgs& a) -> TensorList { return {avg_pool2d_grad(a.grad(), a.saved[0], p)}; });
}

Tensor avg_pool2d_grad(const Tensor& grad, const Tensor& input, const Pool2dParams& p) {
  Tensor out = native::avg_pool2d_backward(grad, input, p);
  return record("AvgPool2dBackwardBackward", out, {grad}, {},
                [p](const BackwardArgs& a) -> TensorList { return {avg_pool2d_impl(a.grad(), p)}; });
}

Tensor adaptive_avg_pool2d_grad(const Tensor& grad, const Tensor& input);

Tensor adaptive_avg_pool2d_impl(const Tensor& input, Pair output_size) {
  Tensor out = native::adaptive_avg_pool2d(input, output_size);
  return record("AdaptiveAvgPool2dBackward", out, {input}, {input},
                [](const BackwardArgs& a) -> TensorList { return {adaptive_avg_pool2d_grad(a.grad(), a.saved[0])}; });
}

Tensor adaptive_avg_pool2d_grad(const Tensor& grad, const Tensor& input) {
  Tensor out = native::adaptive_avg_pool2d_backward(grad, input);
  Pair output_size{grad.size(-2), grad.size(-1)};
  return record(
      "AdaptiveAvgPool2dBackwardBackward", out, {grad}, {},
      [output_size](const BackwardArgs& a) -> TensorList { return {adaptive_avg_pool2d_impl(a.grad(), output_size)}; });
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride,
                                                  Size2 padding, Size2 dilation, bool ceil_mode) {
  Pool2dParams p = pool_params(kernel_size, stride, padding, dilation, ceil_mode);
  auto [out, indices] = native::max_pool2d_with_indices(input, p);
  out = record("MaxPool2dBackward", out, {input}, {input, indices},
               [](const BackwardArgs& a) -> TensorList { return {max_pool2d_grad(a.grad(), a.saved[0], a.saved[1])}; });
  return {out, indices};
}

Tensor max_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride, Size2 padding, Size2 dilation,
                  bool ceil_mode) {
  return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}

Tensor avg_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride, Size2 padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  Pool2dParams p = pool_params(kernel_size, stride, padding, 1, ceil_mode);
  p.count_include_pad = count_include_pad;
  BRISK_CHECK(!divisor_override || *divisor_override > 0, "avg_pool2d: divisor_override must be positive, got {}",
              divisor_override.value_or(0));
  p.divisor_override = divisor_override.value_or(0);
  return avg_pool2d_impl(input, p);
}

Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  return adaptive_avg_pool2d_impl(input, output_size);
}

}  // namespace brisk::nn::functional
