#pragma once
// The derivative rules that an op of ops.h and its in-place variant (Tensor::op_, inplace.cc)
// share. Each rule is written once, next to the forward of the out-of-place op (the file is
// named on each group below); both ops' backward closures call it.
//
// A rule reads the incoming gradient and which inputs want one from `g` (never g.saved), and
// takes the values it needs as arguments: the two ops save different tensors, because an
// in-place op has overwritten its input by the time backward runs. It keeps what the rule needs
// instead: its result, a clone of the input taken before the change, or the part of the input
// the rule reads (its sign, the clamp mask). A rule may leave undefined the gradient of an
// input that wants none.
#include <optional>

#include "autograd/record.h"
#include "tensor/op_table.h"

namespace brisk::autograd {

// ---- arithmetic.cc ----

// add(a, b, alpha) = a + alpha * b: grad, alpha * grad. sub(a, b, alpha) is add with -alpha.
TensorList add_backward(const BackwardArgs& g, Scalar alpha);
// x + c and x - c for a number c: the gradient passes through.
TensorList add_scalar_backward(const BackwardArgs& g);
// mul(a, b): grad * b, grad * a.
TensorList mul_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b);
// x * c for a number c: grad * c.
TensorList mul_scalar_backward(const BackwardArgs& g, Scalar c);
// div(a, b): grad / b, -grad * a / b^2.
TensorList div_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b);
// x / c for a number c: grad / c.
TensorList div_scalar_backward(const BackwardArgs& g, Scalar c);
// pow(x, e) for a number e: grad * e * x^(e - 1), and zero for e == 0.
TensorList pow_scalar_backward(const BackwardArgs& g, const Tensor& x, Scalar exponent);
// neg(x): -grad.
TensorList neg_backward(const BackwardArgs& g);
// addcmul(x, a, b, value) = x + value * a * b: grad, value * grad * b, value * grad * a.
TensorList addcmul_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b, Scalar value);
// addcdiv(x, a, b, value) = x + value * a / b: grad, value * grad / b, -value * grad * a / b^2.
TensorList addcdiv_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b, Scalar value);
// lerp(start, end, weight): (1 - weight) * grad, weight * grad.
TensorList lerp_backward(const BackwardArgs& g, Scalar weight);

// ---- unary.cc ----

// The derivative of each math row of tensor/op_table.h: abs_backward(g, saved), exp_backward,
// ...; `saved` is what the row's Saved column names (x, the result, or undefined).
#define BRISK_MATH_DERIVATIVE(Op, name, ...) TensorList name##_backward(const BackwardArgs& g, const Tensor& saved);
BRISK_UNARY_MATH_OPS(BRISK_MATH_DERIVATIVE)
#undef BRISK_MATH_DERIVATIVE

// ---- select_ops.cc ----

// Where the gradient of clamp(x, min, max) flows: strictly inside the bounds. At a bound (and
// at NaN) it is 0, as in PyTorch. At least one bound is given.
Tensor clamp_passes(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
// clamp(x, min, max) with number bounds: grad where `passes` (clamp_passes of x), else 0.
TensorList clamp_backward(const BackwardArgs& g, const Tensor& passes);
// masked_fill(x, mask, value): grad, 0 where `mask`.
TensorList masked_fill_backward(const BackwardArgs& g, const Tensor& mask);

}  // namespace brisk::autograd
