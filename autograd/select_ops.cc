// Ops that pick between values: clamp, maximum, minimum, where, masked_fill. The gradient
// goes to whichever operand was picked.
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// `grad` where `keep` holds, else 0.
Tensor grad_where(const Tensor& grad, const Tensor& keep) { return masked_fill(grad, logical_not(keep), 0.0); }

// The gradient of operand `a` of maximum(a, b) (or minimum, with `loses` = a > b): all of it
// unless `a` lost, half of it on ties. Where either is NaN both get all of it, as in PyTorch.
Tensor pick_grad(const Tensor& grad, const Tensor& loses, const Tensor& ties) {
  return masked_fill(where(ties, grad * 0.5, grad), loses, 0.0);
}

// maximum or minimum: the gradient of each operand unless it lost, as pick_grad.
Tensor extremum(BinaryOp op, const char* node, const Tensor& a, const Tensor& b) {
  auto [in, out] = autograd::run_row(op, a, b);
  return record(node, out, {in[0], in[1]}, {in[0], in[1]}, [op](const BackwardArgs& g) -> TensorList {
    const Tensor& a = g.saved[0];
    const Tensor& b = g.saved[1];
    auto loses = [op](const Tensor& x, const Tensor& y) { return op == BinaryOp::Maximum ? x.lt(y) : x.gt(y); };
    Tensor ties = a.eq(b);
    return {g.needs_grad[0] ? pick_grad(g.grad(), loses(a, b), ties) : Tensor(),
            g.needs_grad[1] ? pick_grad(g.grad(), loses(b, a), ties) : Tensor()};
  });
}

}  // namespace

Tensor autograd::clamp_passes(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  Tensor inside;
  if (min) inside = x.gt(*min);
  if (max) inside = inside.defined() ? logical_and(inside, x.lt(*max)) : x.lt(*max);
  return inside;
}

TensorList autograd::clamp_backward(const BackwardArgs& g, const Tensor& passes) {
  return {grad_where(g.grad(), passes)};
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  BRISK_CHECK(min || max, "clamp: at least one of min and max must be given (tensor {})", x.describe());
  OpParams params{min ? min->to_double() : -INFINITY, max ? max->to_double() : INFINITY};
  auto [in, out] = autograd::run_row(UnaryOp::Clamp, x, params);
  return record("ClampBackward", out, {in[0]}, {in[0]}, [min, max](const BackwardArgs& g) {
    return autograd::clamp_backward(g, autograd::clamp_passes(g.saved[0], min, max));
  });
}

// With tensor bounds the gradient is that of minimum(maximum(x, min), max): ties split it.
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  BRISK_CHECK(min.defined() || max.defined(), "clamp: at least one of min and max must be given (tensor {})",
              x.describe());
  if (!max.defined()) return maximum(x, min);
  if (!min.defined()) return minimum(x, max);
  auto [in, out] = autograd::run_row(TernaryOp::Clamp, x, min, max);
  return record("ClampBackward", out, {in[0], in[1], in[2]}, {in[0], in[1], in[2]}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    const Tensor& lo = g.saved[1];
    const Tensor& hi = g.saved[2];
    Tensor raised = maximum(x, lo);
    Tensor ties_hi = raised.eq(hi);
    Tensor grad_raised = pick_grad(g.grad(), raised.gt(hi), ties_hi);
    Tensor ties_lo = x.eq(lo);
    return {g.needs_grad[0] ? pick_grad(grad_raised, x.lt(lo), ties_lo) : Tensor(),
            g.needs_grad[1] ? pick_grad(grad_raised, lo.lt(x), ties_lo) : Tensor(),
            g.needs_grad[2] ? pick_grad(g.grad(), hi.gt(raised), ties_hi) : Tensor()};
  });
}

Tensor maximum(const Tensor& a, const Tensor& b) { return extremum(BinaryOp::Maximum, "MaximumBackward", a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return extremum(BinaryOp::Minimum, "MinimumBackward", a, b); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = native::where(cond, a, b);
  return record("WhereBackward", out, {a, b}, {cond}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& cond = g.saved[0];
    return {g.needs_grad[0] ? grad_where(g.grad(), cond) : Tensor(),
            g.needs_grad[1] ? masked_fill(g.grad(), cond, 0.0) : Tensor()};
  });
}

TensorList autograd::masked_fill_backward(const BackwardArgs& g, const Tensor& mask) {
  return {masked_fill(g.grad(), mask, 0.0)};
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value) {
  Tensor out = native::masked_fill(x, mask, value);
  return record("MaskedFillBackward", out, {x}, {mask},
                [](const BackwardArgs& g) { return autograd::masked_fill_backward(g, g.saved[0]); });
}

}  // namespace brisk
