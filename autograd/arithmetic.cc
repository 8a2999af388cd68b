// Arithmetic: add, sub, mul, div, pow, neg, addcmul, addcdiv, lerp, with tensor and number operands.
#include <cmath>

#include "autograd/backward_ops.h"
#include "autograd/derivatives.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

Tensor scaled(const Tensor& grad, Scalar factor) { return factor.to_double() == 1.0 ? grad : grad * factor; }

// The tensor to save only when `needed`: saving keeps memory alive until backward.
Tensor save_if(bool needed, const Tensor& t) { return needed ? t : Tensor(); }

}  // namespace

TensorList autograd::add_backward(const BackwardArgs& g, Scalar alpha) {
  return {g.grad(), g.needs_grad[1] ? scaled(g.grad(), alpha) : Tensor()};
}

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  auto [in, out] = autograd::run_row(BinaryOp::Add, a, b, OpParams{alpha.to_double()});
  return record("AddBackward", out, {in[0], in[1]}, {},
                [alpha](const BackwardArgs& g) { return autograd::add_backward(g, alpha); });
}

Tensor add_relu(const Tensor& a, const Tensor& b) {
  auto [in, out] = autograd::run_row(BinaryOp::AddRelu, a, b);
  return record("AddReluBackward", out, {in[0], in[1]}, {out}, [](const BackwardArgs& g) -> TensorList {
    Tensor grad = autograd::activation_backward(BinaryOp::ReluBackward, g.grad(), g.saved[0]);
    return {g.needs_grad[0] ? grad : Tensor(), g.needs_grad[1] ? grad : Tensor()};
  });
}

Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  auto [in, out] = autograd::run_row(BinaryOp::Sub, a, b, OpParams{alpha.to_double()});
  return record("SubBackward", out, {in[0], in[1]}, {},
                [alpha](const BackwardArgs& g) { return autograd::add_backward(g, -alpha.to_double()); });
}

TensorList autograd::mul_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b) {
  return {g.needs_grad[0] ? g.grad() * b : Tensor(), g.needs_grad[1] ? g.grad() * a : Tensor()};
}

Tensor mul(const Tensor& a_in, const Tensor& b_in) {
  auto [in, out] = autograd::run_row(BinaryOp::Mul, a_in, b_in);
  const Tensor &a = in[0], &b = in[1];
  return record("MulBackward", out, {a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
                [](const BackwardArgs& g) { return autograd::mul_backward(g, g.saved[0], g.saved[1]); });
}

TensorList autograd::div_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b) {
  return {g.needs_grad[0] ? g.grad() / b : Tensor(), g.needs_grad[1] ? -g.grad() * a / (b * b) : Tensor()};
}

Tensor div(const Tensor& a_in, const Tensor& b_in) {
  auto [in, out] = autograd::run_row(BinaryOp::Div, a_in, b_in);
  const Tensor &a = in[0], &b = in[1];
  return record("DivBackward", out, {a, b}, {save_if(b.requires_grad(), a), b},
                [](const BackwardArgs& g) { return autograd::div_backward(g, g.saved[0], g.saved[1]); });
}

Tensor pow(const Tensor& a_in, const Tensor& b_in) {
  auto [in, out] = autograd::run_row(BinaryOp::Pow, a_in, b_in);
  const Tensor &a = in[0], &b = in[1];
  return record("PowBackward", out, {a, b}, {a, b, save_if(b.requires_grad(), out)},
                [](const BackwardArgs& g) -> TensorList {
                  const Tensor& base = g.saved[0];
                  const Tensor& exponent = g.saved[1];
                  Tensor grad_base, grad_exponent;
                  if (g.needs_grad[0]) {
                    // d/da a^b = b a^(b-1), taken as 0 where b == 0 (so 0^0 has no NaN gradient).
                    grad_base = masked_fill(g.grad() * exponent * pow(base, exponent - 1.0), exponent.eq(0.0), 0.0);
                  }
                  if (g.needs_grad[1]) {
                    // d/db a^b = a^b log(a), taken as 0 where a == 0 and b >= 0, as PyTorch.
                    Tensor zero_base = logical_and(base.eq(0.0), exponent.ge(0.0));
                    grad_exponent = masked_fill(g.grad() * g.saved[2] * log(base), zero_base, 0.0);
                  }
                  return {grad_base, grad_exponent};
                });
}

TensorList autograd::pow_scalar_backward(const BackwardArgs& g, const Tensor& x, Scalar exponent) {
  double e = exponent.to_double();
  if (e == 0.0) return {zeros_like(g.grad())};
  return {g.grad() * pow(x, e - 1.0) * e};
}

Tensor pow(const Tensor& a_in, Scalar exponent) {
  auto [in, out] = autograd::run_row(BinaryOp::Pow, a_in, exponent);
  const Tensor& a = in[0];
  return record("PowBackward", out, {a}, {a},
                [exponent](const BackwardArgs& g) { return autograd::pow_scalar_backward(g, g.saved[0], exponent); });
}

Tensor pow(Scalar base, const Tensor& exponent_in) {
  auto [in, out] = autograd::run_row(BinaryOp::Pow, base, exponent_in);
  const Tensor& exponent = in[0];
  return record("PowBackward", out, {exponent}, {exponent, out}, [base](const BackwardArgs& g) -> TensorList {
    double b = base.to_double();
    if (b == 0.0) return {masked_fill(g.grad() * g.saved[1] * -INFINITY, g.saved[0].ge(0.0), 0.0)};
    return {g.grad() * g.saved[1] * std::log(b)};
  });
}

TensorList autograd::neg_backward(const BackwardArgs& g) { return {-g.grad()}; }

Tensor neg(const Tensor& x) {
  auto [in, out] = autograd::run_row(UnaryOp::Neg, x);
  return record("NegBackward", out, {in[0]}, {}, autograd::neg_backward);
}

TensorList autograd::addcmul_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b, Scalar value) {
  return {g.grad(), g.needs_grad[1] ? scaled(g.grad() * b, value) : Tensor(),
          g.needs_grad[2] ? scaled(g.grad() * a, value) : Tensor()};
}

Tensor addcmul(const Tensor& x_in, const Tensor& a_in, const Tensor& b_in, Scalar value) {
  auto [in, out] = autograd::run_row(TernaryOp::Addcmul, x_in, a_in, b_in, OpParams{value.to_double()});
  const Tensor &x = in[0], &a = in[1], &b = in[2];
  return record(
      "AddcmulBackward", out, {x, a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
      [value](const BackwardArgs& g) { return autograd::addcmul_backward(g, g.saved[0], g.saved[1], value); });
}

TensorList autograd::addcdiv_backward(const BackwardArgs& g, const Tensor& a, const Tensor& b, Scalar value) {
  return {g.grad(), g.needs_grad[1] ? scaled(g.grad() / b, value) : Tensor(),
          g.needs_grad[2] ? scaled(-g.grad() * a / (b * b), value) : Tensor()};
}

Tensor addcdiv(const Tensor& x_in, const Tensor& a_in, const Tensor& b_in, Scalar value) {
  auto [in, out] = autograd::run_row(TernaryOp::Addcdiv, x_in, a_in, b_in, OpParams{value.to_double()});
  const Tensor &x = in[0], &a = in[1], &b = in[2];
  return record("AddcdivBackward", out, {x, a, b}, {save_if(b.requires_grad(), a), b}, [value](const BackwardArgs& g) {
    return autograd::addcdiv_backward(g, g.saved[0], g.saved[1], value);
  });
}

TensorList autograd::lerp_backward(const BackwardArgs& g, Scalar weight) {
  double w = weight.to_double();
  return {g.needs_grad[0] ? scaled(g.grad(), 1.0 - w) : Tensor(), g.needs_grad[1] ? scaled(g.grad(), w) : Tensor()};
}

Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight) {
  auto [in, out] = autograd::run_row(BinaryOp::Lerp, start, end, OpParams{weight.to_double()});
  return record("LerpBackward", out, {in[0], in[1]}, {},
                [weight](const BackwardArgs& g) { return autograd::lerp_backward(g, weight); });
}

// ---- Tensor and number ----

TensorList autograd::add_scalar_backward(const BackwardArgs& g) { return {g.grad()}; }

Tensor Tensor::add(Scalar other) const {
  auto [in, out] = autograd::run_row(BinaryOp::Add, *this, other, OpParams{1.0});
  return record("AddBackward", out, {in[0]}, {}, autograd::add_scalar_backward);
}

Tensor Tensor::sub(Scalar other) const {
  auto [in, out] = autograd::run_row(BinaryOp::Sub, *this, other, OpParams{1.0});
  return record("SubBackward", out, {in[0]}, {}, autograd::add_scalar_backward);
}

TensorList autograd::mul_scalar_backward(const BackwardArgs& g, Scalar c) { return {g.grad() * c}; }

Tensor Tensor::mul(Scalar other) const {
  auto [in, out] = autograd::run_row(BinaryOp::Mul, *this, other);
  return record("MulBackward", out, {in[0]}, {},
                [other](const BackwardArgs& g) { return autograd::mul_scalar_backward(g, other); });
}

TensorList autograd::div_scalar_backward(const BackwardArgs& g, Scalar c) { return {g.grad() / c}; }

Tensor Tensor::div(Scalar other) const {
  auto [in, out] = autograd::run_row(BinaryOp::Div, *this, other);
  return record("DivBackward", out, {in[0]}, {},
                [other](const BackwardArgs& g) { return autograd::div_scalar_backward(g, other); });
}

// c - x = -(x - c): the gradient of neg.
Tensor operator-(Scalar a, const Tensor& b) {
  auto [in, out] = autograd::run_row(BinaryOp::Sub, a, b, OpParams{1.0});
  return record("RsubBackward", out, {in[0]}, {}, autograd::neg_backward);
}

Tensor operator/(Scalar a, const Tensor& b) {
  auto [in, out] = autograd::run_row(BinaryOp::Div, a, b);
  return record("RdivBackward", out, {in[0]}, {in[0], out},
                [](const BackwardArgs& g) -> TensorList { return {-g.grad() * g.saved[1] / g.saved[0]}; });
}

}  // namespace brisk
