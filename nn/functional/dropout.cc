#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

namespace {

void check_probability(const char* op, double p) {
  BRISK_CHECK(p >= 0.0 && p <= 1.0, "{}: probability has to be between 0 and 1, but got {}", op, p);
}

// input * a mask of `mask_shape` (broadcast over the input) whose elements are 0 with
// probability p and 1 / (1 - p) otherwise. The mask is data, not a function of the input: only
// the product records history.
Tensor apply_mask(const Tensor& input, const Shape& mask_shape, double p, Generator* generator) {
  if (p == 1.0) return input * zeros_like(input);
  Tensor mask = native::empty(mask_shape, input.options());
  native::bernoulli_(mask, 1.0 - p, generator);
  native::binary_(BinaryOp::Div, mask, Scalar(1.0 - p));
  return input * mask;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool training, Generator* generator) {
  check_probability("dropout", p);
  if (!training || p == 0.0) return input;
  return apply_mask(input, input.sizes(), p, generator);
}

Tensor dropout2d(const Tensor& input, double p, bool training, Generator* generator) {
  check_probability("dropout2d", p);
  BRISK_CHECK(input.dim() == 3 || input.dim() == 4, "dropout2d: expected an input [N, C, H, W] or [N, C, L], got {}",
              input.describe());
  if (!training || p == 0.0) return input;
  Shape channels(input.dim(), 1);
  channels[0] = input.size(0);
  channels[1] = input.size(1);
  return apply_mask(input, channels, p, generator);
}

}  // namespace brisk::nn::functional
