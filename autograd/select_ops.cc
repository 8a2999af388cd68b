// Ops that pick between values: clamp, maximum, minimum, where, masked_fill. The gradient
// goes to whichever operand was picked.
#include <cmath>

#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// `grad` where `keep` holds, else 0.
Tensor grad_where(const Tensor& grad, const Tensor& keep) { return masked_fill(grad, logical_not(keep), 0.0); }

// The gradient of one operand of maximum/minimum: all of it where that operand won, half of
// it on ties (as PyTorch).
Tensor pick_grad(const Tensor& grad, const Tensor& wins, const Tensor& ties) {
  return grad_where(grad, wins) + grad_where(grad, ties) * 0.5;
}

}  // namespace

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  BRISK_CHECK(min || max, "clamp: at least one of min and max must be given (tensor {})", x.describe());
  OpParams params{min ? min->to_double() : -INFINITY, max ? max->to_double() : INFINITY};
  Tensor out = native::unary(UnaryOp::Clamp, x, params);
  return record("ClampBackward", out, {x}, {x}, [min, max](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    Tensor inside;
    if (min) inside = x.ge(*min);
    if (max) inside = inside.defined() ? logical_and(inside, x.le(*max)) : x.le(*max);
    return {grad_where(g.grad(), inside)};
  });
}

Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  BRISK_CHECK(min.defined() || max.defined(), "clamp: at least one of min and max must be given (tensor {})",
              x.describe());
  if (!max.defined()) return where(x.lt(min), min, x);
  if (!min.defined()) return where(x.gt(max), max, x);
  Tensor out = native::ternary(TernaryOp::Clamp, x, min, max);
  return record("ClampBackward", out, {x, min, max}, {x, min, max}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    const Tensor& lo = g.saved[1];
    const Tensor& hi = g.saved[2];
    // When min > max the result is max everywhere, as in PyTorch.
    return {g.needs_grad[0] ? grad_where(g.grad(), logical_and(x.ge(lo), x.le(hi))) : Tensor(),
            g.needs_grad[1] ? grad_where(g.grad(), logical_and(x.lt(lo), lo.lt(hi))) : Tensor(),
            g.needs_grad[2] ? grad_where(g.grad(), logical_or(hi.lt(x), hi.lt(lo))) : Tensor()};
  });
}

Tensor maximum(const Tensor& a, const Tensor& b) {
  Tensor out = native::binary(BinaryOp::Maximum, a, b);
  return record("MaximumBackward", out, {a, b}, {a, b}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& a = g.saved[0];
    const Tensor& b = g.saved[1];
    Tensor ties = a.eq(b);
    return {g.needs_grad[0] ? pick_grad(g.grad(), a.gt(b), ties) : Tensor(),
            g.needs_grad[1] ? pick_grad(g.grad(), b.gt(a), ties) : Tensor()};
  });
}

Tensor minimum(const Tensor& a, const Tensor& b) {
  Tensor out = native::binary(BinaryOp::Minimum, a, b);
  return record("MinimumBackward", out, {a, b}, {a, b}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& a = g.saved[0];
    const Tensor& b = g.saved[1];
    Tensor ties = a.eq(b);
    return {g.needs_grad[0] ? pick_grad(g.grad(), a.lt(b), ties) : Tensor(),
            g.needs_grad[1] ? pick_grad(g.grad(), b.lt(a), ties) : Tensor()};
  });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = native::where(cond, a, b);
  return record("WhereBackward", out, {a, b}, {cond}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& cond = g.saved[0];
    return {g.needs_grad[0] ? grad_where(g.grad(), cond) : Tensor(),
            g.needs_grad[1] ? masked_fill(g.grad(), cond, 0.0) : Tensor()};
  });
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value) {
  Tensor out = native::masked_fill(x, mask, value);
  return record("MaskedFillBackward", out, {x}, {mask},
                [](const BackwardArgs& g) -> TensorList { return {masked_fill(g.grad(), g.saved[0], 0.0)}; });
}

}  // namespace brisk
