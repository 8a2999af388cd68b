#pragma once
// Extending Brisk, way (b): ops with a hand-written backward, as custom autograd Functions
// (autograd/function.h); see docs/extending.md.
//
//   Tensor y = examples::swish(x);                  // x * sigmoid(x), saving only x
//   Tensor z = examples::reverse_gradient(y, 0.5);  // identity forward, -0.5 * grad backward
#include "autograd/function.h"

namespace brisk::examples {

// x * sigmoid(x). Composed from ops, autograd would keep sigmoid(x) and the product's inputs
// for backward; this keeps only x and recomputes sigmoid in backward.
struct SwishFunction : autograd::Function<SwishFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x);
  static autograd::TensorList backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs);
};

// The identity whose gradient is -lambda * grad: the gradient reversal layer of
// domain-adversarial training. No composition of ops has this gradient.
struct GradientReversalFunction : autograd::Function<GradientReversalFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double lambda);
  static autograd::TensorList backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs);
};

inline Tensor swish(const Tensor& x) { return SwishFunction::apply(x); }
inline Tensor reverse_gradient(const Tensor& x, double lambda = 1.0) {
  return GradientReversalFunction::apply(x, lambda);
}

}  // namespace brisk::examples
