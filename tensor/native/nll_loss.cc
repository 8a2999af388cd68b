// The fused nll_loss and its gradient: operand checks, the [N, C, S] views the kernels read
// and output allocation; the arithmetic is the backend's.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {

namespace {

// total_weight's dtype for an input of `dtype` (Backend::nll_loss).
DType total_weight_dtype(DType dtype) { return is_reduced_float(dtype) ? kFloat32 : dtype; }

// The spatial positions S of an input [N, C, *]: the product of the dims after C.
int64_t positions(const Shape& input_sizes) {
  int64_t s = 1;
  for (size_t d = 2; d < input_sizes.size(); ++d) s *= input_sizes[d];
  return s;
}

// Checks target and weight against an input of `input_sizes` for op `name`.
void check_operands(const char* name, const Shape& input_sizes, const Tensor& target, const Tensor& weight) {
  BRISK_CHECK(input_sizes.size() >= 2, "{}: expected an input [N, C, *], got {}", name, input_sizes);
  Shape expected = input_sizes;
  expected.erase(expected.begin() + 1);
  BRISK_CHECK(target.dtype() == kInt64 && target.sizes() == expected,
              "{}: expected int64 targets of shape {} for an input {}, got {}", name, expected, input_sizes,
              target.describe());
  BRISK_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == input_sizes[1]),
              "{}: weight {} should have one entry per class ([{}])", name, weight.describe(), input_sizes[1]);
}

Shape loss_sizes(const Tensor& target, LossReduction reduction) {
  return reduction == LossReduction::None ? target.sizes() : Shape{};
}

}  // namespace

std::array<Tensor, 2> nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& record,
                               const NllLossParams& params) {
  Device device = common_device("nll_loss", {input, target, weight, record});
  BRISK_CHECK(is_floating_point(input.dtype()), "nll_loss: expected a floating point input, got {}", input.describe());
  check_operands("nll_loss", input.sizes(), target, weight);
  BRISK_CHECK(!record.defined() || (record.dtype() == kInt64 && record.sizes() == Shape{4} && record.is_contiguous()),
              "nll_loss: the target record must be a contiguous int64 [4], got {}", record.describe());
  const int64_t batch = input.size(0), classes = input.size(1), inner = positions(input.sizes());
  Tensor x = view(contiguous(input), {batch, classes, inner});
  Tensor t = view(contiguous(target), {batch, inner});
  Tensor w = weight.defined() ? contiguous(to(weight, device, x.dtype())) : Tensor();
  Tensor out = empty(loss_sizes(target, params.reduction), x.options());
  Tensor total_weight = empty({}, TensorOptions(total_weight_dtype(x.dtype())).device(device));
  backend_for(device).nll_loss(out, total_weight, record, x, t, w, params);
  return {out, total_weight};
}

Tensor nll_loss_backward(const Tensor& grad_out, const Shape& input_sizes, const Tensor& target, const Tensor& weight,
                         const Tensor& total_weight, const NllLossParams& params) {
  Device device = common_device("nll_loss_backward", {grad_out, target, weight, total_weight});
  check_operands("nll_loss_backward", input_sizes, target, weight);
  BRISK_CHECK(grad_out.sizes() == loss_sizes(target, params.reduction) && is_floating_point(grad_out.dtype()),
              "nll_loss_backward: gradient {} does not match the loss of targets {}", grad_out.describe(),
              target.sizes());
  BRISK_CHECK(total_weight.numel() == 1 && total_weight.dtype() == total_weight_dtype(grad_out.dtype()),
              "nll_loss_backward: total_weight {} does not match the gradient {}", total_weight.describe(),
              grad_out.describe());
  const int64_t batch = input_sizes[0], classes = input_sizes[1], inner = positions(input_sizes);
  Tensor grad_input = empty(input_sizes, TensorOptions(grad_out.dtype()).device(device));
  Tensor w = weight.defined() ? contiguous(to(weight, device, grad_out.dtype())) : Tensor();
  backend_for(device).nll_loss_backward(view(grad_input, {batch, classes, inner}), contiguous(grad_out),
                                        view(contiguous(target), {batch, inner}), w, total_weight, params);
  return grad_input;
}

}  // namespace brisk::native
