#include "nn/functional/nll_loss_op.h"

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "nn/functional/class_targets.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional::detail {
namespace {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

Tensor nll_loss_forward(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& target_record,
                        const NllLossParams& params, Tensor* total_weight);

// The gradient of the input [N, C, *] of `input_sizes`; differentiable in grad_out.
Tensor nll_loss_backward(const Tensor& grad_out, const Shape& input_sizes, const Tensor& target, const Tensor& weight,
                         const Tensor& total_weight, const NllLossParams& params) {
  Tensor grad_input = native::nll_loss_backward(grad_out, input_sizes, target, weight, total_weight, params);
  return record("NllLossBackwardBackward", grad_input, {grad_out}, {target, weight},
                [params](const BackwardArgs& a) -> TensorList {
                  // The adjoint of a linear map that picks -weight[t] * grad (/ total_weight) is
                  // the forward's pick of the same entries (the forward's total_weight is the
                  // same sum over the same targets).
                  return {nll_loss_forward(a.grad(), a.saved[0], a.saved[1], Tensor(), params, nullptr)};
                });
}

// The forward, differentiable in `input`; the bad targets go to `target_record` when defined.
Tensor nll_loss_forward(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& target_record,
                        const NllLossParams& params, Tensor* total_weight) {
  std::array<Tensor, 2> result = native::nll_loss(input, target, weight, target_record, params);
  if (total_weight != nullptr) *total_weight = result[1];
  const Shape input_sizes = input.sizes();
  return record("NllLossBackward", result[0], {input}, {target, weight, result[1]},
                [params, input_sizes](const BackwardArgs& a) -> TensorList {
                  return {nll_loss_backward(a.grad(), input_sizes, a.saved[0], a.saved[1], a.saved[2], params)};
                });
}

}  // namespace

NllLossResult fused_nll_loss(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                             NllLossParams params) {
  BRISK_CHECK(!(weight.defined() && weight.requires_grad() && autograd::GradMode::is_enabled()),
              "{}: the class weights {} require grad, but {} has no gradient with respect to them (as in PyTorch); "
              "pass weight.detach()",
              op, weight.describe(), op);
  const bool unbatched = input.dim() == 1;
  Tensor batched_input = unbatched ? input.unsqueeze(0) : input;
  Tensor batched_target = unbatched ? target.unsqueeze(0) : target;
  TargetRecord r = target_record(op, input.device(), batched_input.size(1), params.ignore_index, target.numel());
  params.call = r.call;
  NllLossResult result;
  result.loss = nll_loss_forward(batched_input, batched_target, weight, r.record, params, &result.total_weight);
  finish_target_record(r);
  if (unbatched && params.reduction == LossReduction::None) result.loss = result.loss.squeeze(0);
  return result;
}

}  // namespace brisk::nn::functional::detail
