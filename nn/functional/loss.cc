// The losses, composed from differentiable ops, with PyTorch's handling of class weights,
// ignore_index and label smoothing.
#include <vector>

#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

namespace {

Tensor reduce(const Tensor& losses, Reduction reduction) {
  switch (reduction) {
    case Reduction::Sum:
      return losses.sum();
    case Reduction::Mean:
      return losses.mean();
    case Reduction::None:
      break;
  }
  return losses;
}

// The targets of a class-index loss, checked against the input [N, C, *] (a 1-D input [C]
// with a 0-dim target counts as a batch of one), with ignored targets replaced by class 0
// so they can index safely.
struct Targets {
  Tensor input;   // [N, C, *]
  Tensor target;  // [N, *], ignored entries set to 0
  Tensor valid;   // bool [N, *]: not ignored
  bool unbatched;
};

Targets check_targets(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                      int64_t ignore_index) {
  BRISK_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "{}: expected a floating point input [N, C, ...] or [C], got {}", op, input.describe());
  BRISK_CHECK(target.dtype() == kInt64, "{}: expected int64 class-index targets, got {}", op, target.describe());
  Targets t;
  t.unbatched = input.dim() == 1;
  t.input = t.unbatched ? input.unsqueeze(0) : input;
  Tensor raw = t.unbatched ? target.unsqueeze(0) : target;
  Shape expected = t.input.sizes();
  expected.erase(expected.begin() + 1);
  BRISK_CHECK(raw.sizes() == expected, "{}: input {} expects a target of shape {}, got target {}", op,
              input.sizes(), t.unbatched ? Shape{} : expected, target.sizes());
  const int64_t classes = t.input.size(1);
  BRISK_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == classes),
              "{}: weight {} should have one entry per class ([{}])", op, weight.describe(), classes);
  for (int64_t value : raw.to_vector<int64_t>()) {
    BRISK_CHECK(value == ignore_index || (value >= 0 && value < classes),
                "{}: target {} is out of bounds for {} classes (ignore_index {})", op, value, classes,
                ignore_index);
  }
  t.valid = raw.ne(ignore_index);
  t.target = masked_fill(raw, t.valid.logical_not(), 0);
  return t;
}

// weight[target] for each element (the class weight, or 1), zero where ignored.
Tensor element_weights(const Targets& t, const Tensor& weight) {
  Tensor valid = t.valid.to(t.input.dtype());
  if (!weight.defined()) return valid;
  Tensor w = index_select(weight, 0, t.target.flatten()).view(t.target.sizes());
  return w * valid;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  Targets t = check_targets("nll_loss", input, target, weight, ignore_index);
  Tensor picked = gather(t.input, 1, t.target.unsqueeze(1)).squeeze(1);
  Tensor w = element_weights(t, weight);
  // where, not a product with 0: an ignored element's pick may be -inf.
  Tensor losses = where(t.valid, -(picked * w), zeros_like(picked));
  switch (reduction) {
    case Reduction::None:
      return t.unbatched ? losses.squeeze(0) : losses;
    case Reduction::Sum:
      return losses.sum();
    case Reduction::Mean:
      return losses.sum() / w.sum();
  }
  return losses;
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  BRISK_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
              "cross_entropy: label_smoothing must be between 0.0 and 1.0, got {}", label_smoothing);
  BRISK_CHECK(input.dim() >= 1, "cross_entropy: expected an input [N, C, ...] or [C], got {}", input.describe());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor log_probs = brisk::log_softmax(input, class_dim);
  Tensor nll = nll_loss(log_probs, target, weight, ignore_index, reduction);
  if (label_smoothing == 0.0) return nll;

  Targets t = check_targets("cross_entropy", log_probs, target, weight, ignore_index);
  const int64_t classes = t.input.size(1);
  Tensor weighted = t.input;
  if (weight.defined()) {
    Shape class_shape(t.input.dim(), 1);
    class_shape[1] = classes;
    weighted = weighted * weight.view(class_shape);
  }
  Tensor smooth = where(t.valid, -weighted.sum({1}), zeros(t.target.sizes(), TensorOptions(t.input.dtype()).device(t.input.device())));
  Tensor reduced;
  switch (reduction) {
    case Reduction::None:
      reduced = t.unbatched ? smooth.squeeze(0) : smooth;
      break;
    case Reduction::Sum:
      reduced = smooth.sum();
      break;
    case Reduction::Mean:
      reduced = smooth.sum() / element_weights(t, weight).sum();
      break;
  }
  return nll * (1.0 - label_smoothing) + reduced * (label_smoothing / static_cast<double>(classes));
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  BRISK_CHECK(input.is_floating_point(), "mse_loss: expected a floating point input, got {}", input.describe());
  return reduce(square(input - target), reduction);
}

}  // namespace brisk::nn::functional
