// The losses, composed from differentiable ops, with PyTorch's handling of class weights,
// ignore_index and label smoothing.
#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/functional/class_targets.h"

namespace brisk::nn::functional {

namespace {

using detail::check_class_targets;
using detail::ClassTargets;

Tensor reduce(const Tensor& losses, Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum: return losses.sum();
    case Reduction::Mean: return losses.mean();
    case Reduction::None: break;
  }
  return losses;
}

// weight[target] for each element (the class weight, or 1), zero where ignored.
Tensor element_weights(const ClassTargets& t, const Tensor& weight) {
  Tensor valid = t.valid.to(t.input.dtype());
  if (!weight.defined()) return valid;
  Tensor w = index_select(weight, 0, t.target.flatten()).view(t.target.sizes());
  return w * valid;
}

// Per-element losses of checked targets reduced as nll_loss reduces them: the mean divides by
// the total weight `w` of the elements (element_weights).
Tensor reduce_weighted(const Tensor& losses, const ClassTargets& t, const Tensor& w, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return t.unbatched ? losses.squeeze(0) : losses;
    case Reduction::Sum: return losses.sum();
    case Reduction::Mean: return losses.sum() / w.sum();
  }
  return losses;
}

// nll_loss of targets already checked (cross_entropy checks them once, under its own name).
Tensor checked_nll_loss(const ClassTargets& t, const Tensor& weight, Reduction reduction) {
  Tensor picked = gather(t.input, 1, t.target.unsqueeze(1)).squeeze(1);
  Tensor w = element_weights(t, weight);
  // where, not a product with 0: an ignored element's pick may be -inf.
  return reduce_weighted(where(t.valid, -(picked * w), zeros_like(picked)), t, w, reduction);
}

// weight [C] viewed to multiply an input of `dims` dims whose classes are dim `class_dim`.
Tensor class_weight_view(const Tensor& weight, int64_t dims, int64_t class_dim) {
  Shape shape(dims, 1);
  shape[class_dim] = weight.size(0);
  return weight.view(shape);
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
  return checked_nll_loss(check_class_targets("nll_loss", input, target, weight, ignore_index), weight, reduction);
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
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor log_probs = brisk::log_softmax(input, class_dim);
  ClassTargets t = check_class_targets("cross_entropy", log_probs, target, weight, ignore_index);
  Tensor nll = checked_nll_loss(t, weight, reduction);
  if (label_smoothing == 0.0) return nll;

  const int64_t classes = t.input.size(1);
  Tensor weighted = t.input;
  if (weight.defined()) weighted = weighted * class_weight_view(weight, t.input.dim(), 1);
  Tensor summed = -weighted.sum({1});
  Tensor smooth = reduce_weighted(where(t.valid, summed, zeros_like(summed)), t, element_weights(t, weight), reduction);
  return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / static_cast<double>(classes));
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
