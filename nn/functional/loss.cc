// The losses, with PyTorch's handling of class weights, ignore_index and label smoothing:
// class-index nll_loss and cross_entropy run the fused nll_loss (nn/functional/nll_loss_op.h)
// after log_softmax; label smoothing and class-probability targets are composed from ops.
#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/functional/class_targets.h"
#include "nn/functional/nll_loss_op.h"

namespace brisk::nn::functional {

namespace {

using detail::check_class_targets;
using detail::fused_nll_loss;
using detail::NllLossResult;

Tensor reduce(const Tensor& losses, Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum: return losses.sum();
    case Reduction::Mean: return losses.mean();
    case Reduction::None: break;
  }
  return losses;
}

NllLossParams nll_params(int64_t ignore_index, Reduction reduction) {
  NllLossParams params;
  params.ignore_index = ignore_index;
  switch (reduction) {
    case Reduction::None: params.reduction = LossReduction::None; break;
    case Reduction::Sum: params.reduction = LossReduction::Sum; break;
    case Reduction::Mean: params.reduction = LossReduction::Mean; break;
  }
  return params;
}

// weight [C] viewed to multiply an input of `dims` dims whose classes are dim `class_dim`.
Tensor class_weight_view(const Tensor& weight, int64_t dims, int64_t class_dim) {
  Shape shape(dims, 1);
  shape[class_dim] = weight.size(0);
  return weight.view(shape);
}

// Label smoothing's share of cross_entropy with class indices: each element's
// -sum_c weight[c] * log_probs[c], 0 where its target does not count (ignore_index, or a bad
// one on a device), reduced as nll_loss reduces: the mean divides by the fused nll_loss's
// total weight. Composed from ops (a dozen kernels); the plain loss is fused.
Tensor smoothing_loss(const Tensor& log_probs, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                      Reduction reduction, const Tensor& total_weight) {
  const int64_t class_dim = log_probs.dim() == 1 ? 0 : 1;
  const int64_t classes = log_probs.size(class_dim);
  Tensor weighted = log_probs;
  if (weight.defined()) weighted = weighted * class_weight_view(weight, log_probs.dim(), class_dim);
  Tensor summed = -weighted.sum({class_dim});
  Tensor counted = logical_and(target.ne(ignore_index), logical_and(target.ge(0), target.lt(classes)));
  Tensor losses = where(counted, summed, zeros_like(summed));
  switch (reduction) {
    case Reduction::None: return losses;
    case Reduction::Sum: return losses.sum();
    case Reduction::Mean: return losses.sum() / total_weight.to(losses.dtype());
  }
  return losses;
}

// cross_entropy with class probabilities (a target of the input's shape, soft labels as from
// mixup or cutmix): each element's loss is -sum_c weight[c] * p[c] * log_softmax(input)[c],
// with p = (1 - s) * target + s / C under label smoothing s. The mean divides by the number of
// elements, not by their weights, as PyTorch.
Tensor cross_entropy_with_probabilities(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        int64_t ignore_index, Reduction reduction, double label_smoothing) {
  BRISK_CHECK(target.sizes() == input.sizes(),
              "cross_entropy: a floating point target holds class probabilities and must have the input's shape "
              "{}, got target {} (class indices are int64)",
              input.sizes(), target.describe());
  BRISK_CHECK(target.device() == input.device(), "cross_entropy: target {} is not on the input's device {}",
              target.describe(), input.device());
  BRISK_CHECK(ignore_index < 0, "cross_entropy: ignore_index ({}) is not supported with class-probability targets",
              ignore_index);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(class_dim);
  detail::check_class_weight("cross_entropy", weight, classes);
  Tensor probs = target;
  if (label_smoothing > 0.0) probs = target * (1.0 - label_smoothing) + label_smoothing / static_cast<double>(classes);
  Tensor weighted = brisk::log_softmax(input, class_dim) * probs;
  if (weight.defined()) weighted = weighted * class_weight_view(weight, input.dim(), class_dim);
  return reduce(-weighted.sum({class_dim}), reduction);
}

}  // namespace

Tensor nll_loss(const Tensor& input_in, const Tensor& target, const Tensor& weight_in, int64_t ignore_index,
                Reduction reduction) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::nll_loss, input_in, weight_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1];
  check_class_targets("nll_loss", input, target, weight);
  return fused_nll_loss("nll_loss", input, target, weight, nll_params(ignore_index, reduction)).loss;
}

Tensor cross_entropy(const Tensor& input_in, const Tensor& target_in, const Tensor& weight_in, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::cross_entropy, input_in, target_in, weight_in);
  const Tensor &input = autocast_inputs[0], &target = autocast_inputs[1], &weight = autocast_inputs[2];
  BRISK_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
              "cross_entropy: label_smoothing must be between 0.0 and 1.0, got {}", label_smoothing);
  BRISK_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "cross_entropy: expected a floating point input [N, C, ...] or [C], got {}", input.describe());
  if (target.is_floating_point()) {
    return cross_entropy_with_probabilities(input, target, weight, ignore_index, reduction, label_smoothing);
  }
  check_class_targets("cross_entropy", input, target, weight);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor log_probs = brisk::log_softmax(input, class_dim);
  NllLossResult nll = fused_nll_loss("cross_entropy", log_probs, target, weight, nll_params(ignore_index, reduction));
  if (label_smoothing == 0.0) return nll.loss;
  return nll.loss * (1.0 - label_smoothing) +
         smoothing_loss(log_probs, target, weight, ignore_index, reduction, nll.total_weight) *
             (label_smoothing / static_cast<double>(input.size(class_dim)));
}

Tensor mse_loss(const Tensor& input_in, const Tensor& target_in, Reduction reduction) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::mse_loss, input_in, target_in);
  const Tensor &input = autocast_inputs[0], &target = autocast_inputs[1];
  BRISK_CHECK(input.is_floating_point(), "mse_loss: expected a floating point input, got {}", input.describe());
  BRISK_CHECK(target.device() == input.device(), "mse_loss: target {} is not on the input's device {}",
              target.describe(), input.device());
  broadcast_shapes(input.sizes(), target.sizes(), "mse_loss");  // an error names mse_loss, not sub
  return reduce(square(input - target), reduction);
}

}  // namespace brisk::nn::functional
