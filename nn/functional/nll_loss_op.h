#pragma once
// The fused class-index nll_loss as one autograd node: one kernel forward
// (Backend::nll_loss), one backward (Backend::nll_loss_backward), where the composed loss ran
// some fifty. nll_loss and cross_entropy (nn/functional/loss.cc) call it after their checks:
//
//   detail::check_class_targets("nll_loss", input, target, weight);
//   detail::NllLossResult r = detail::fused_nll_loss("nll_loss", input, target, weight, params);
//
// Its gradient is linear in the loss's gradient and does not depend on the input, so every
// order of derivative is one of these two kernels: the gradient of the backward with respect
// to its grad_out is the forward of that gradient's gradient.
#include "tensor/nll_loss_params.h"
#include "tensor/tensor.h"

namespace brisk::nn::functional::detail {

struct NllLossResult {
  Tensor loss;          // differentiable in the input; [N, *] for LossReduction::None, else []
  Tensor total_weight;  // [] (no history): the sum of the weights of the targets that count
};

// nll_loss of log-probabilities `input` [N, C, *] or [C] against class indices `target`
// (already checked by check_class_targets under `op`), with class weights `weight` (undefined:
// 1 each; no gradient, as in PyTorch: a weight that requires grad is refused). Bad target
// values raise at the call on the CPU and are recorded for check_deferred_targets() on a
// device (nn/functional/class_targets.h); params.call is set here.
NllLossResult fused_nll_loss(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                             NllLossParams params);

}  // namespace brisk::nn::functional::detail
