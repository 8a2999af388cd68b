#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

Tensor dropout(const Tensor& input, double p, bool training, Generator* generator) {
  BRISK_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability has to be between 0 and 1, but got {}", p);
  if (!training || p == 0.0) return input;
  if (p == 1.0) return input * zeros_like(input);
  // The mask is data, not a function of the input: only the product records history.
  Tensor mask = native::empty_like(input);
  native::bernoulli_(mask, 1.0 - p, generator);
  native::binary_(BinaryOp::Div, mask, Scalar(1.0 - p));
  return input * mask;
}

}  // namespace brisk::nn::functional
