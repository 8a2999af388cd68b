// Elementwise math functions of one tensor.
#include <cmath>

#include "autograd/autocast.h"
#include "autograd/derivatives.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

TensorList autograd::abs_backward(const BackwardArgs& g, const Tensor& sign_of_x) { return {g.grad() * sign_of_x}; }

Tensor abs(const Tensor& x) {
  return record("AbsBackward", native::unary(UnaryOp::Abs, x), {x}, {x},
                [](const BackwardArgs& g) { return autograd::abs_backward(g, sign(g.saved[0])); });
}

TensorList autograd::exp_backward(const BackwardArgs& g, const Tensor& result) { return {g.grad() * result}; }

Tensor exp(const Tensor& x_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::exp, x_in);
  const Tensor& x = autocast_inputs[0];
  Tensor out = native::unary(UnaryOp::Exp, x);
  return record("ExpBackward", out, {x}, {out},
                [](const BackwardArgs& g) { return autograd::exp_backward(g, g.saved[0]); });
}

TensorList autograd::log_backward(const BackwardArgs& g, const Tensor& x) { return {g.grad() / x}; }

Tensor log(const Tensor& x_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::log, x_in);
  const Tensor& x = autocast_inputs[0];
  return record("LogBackward", native::unary(UnaryOp::Log, x), {x}, {x},
                [](const BackwardArgs& g) { return autograd::log_backward(g, g.saved[0]); });
}

TensorList autograd::sqrt_backward(const BackwardArgs& g, const Tensor& result) { return {g.grad() / (result * 2.0)}; }

Tensor sqrt(const Tensor& x) {
  Tensor out = native::unary(UnaryOp::Sqrt, x);
  return record("SqrtBackward", out, {x}, {out},
                [](const BackwardArgs& g) { return autograd::sqrt_backward(g, g.saved[0]); });
}

Tensor rsqrt(const Tensor& x_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::rsqrt, x_in);
  const Tensor& x = autocast_inputs[0];
  Tensor out = native::unary(UnaryOp::Rsqrt, x);
  return record("RsqrtBackward", out, {x}, {out}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& y = g.saved[0];
    return {g.grad() * y * y * y * -0.5};
  });
}

Tensor square(const Tensor& x) {
  return record("SquareBackward", native::unary(UnaryOp::Square, x), {x}, {x},
                [](const BackwardArgs& g) -> TensorList { return {g.grad() * g.saved[0] * 2.0}; });
}

Tensor reciprocal(const Tensor& x_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::reciprocal, x_in);
  const Tensor& x = autocast_inputs[0];
  Tensor out = native::unary(UnaryOp::Reciprocal, x);
  return record("ReciprocalBackward", out, {x}, {out}, [](const BackwardArgs& g) -> TensorList {
    const Tensor& y = g.saved[0];
    return {-g.grad() * y * y};
  });
}

Tensor sin(const Tensor& x) {
  return record("SinBackward", native::unary(UnaryOp::Sin, x), {x}, {x},
                [](const BackwardArgs& g) -> TensorList { return {g.grad() * cos(g.saved[0])}; });
}

Tensor cos(const Tensor& x) {
  return record("CosBackward", native::unary(UnaryOp::Cos, x), {x}, {x},
                [](const BackwardArgs& g) -> TensorList { return {-g.grad() * sin(g.saved[0])}; });
}

// d/dx erf(x) = 2 / sqrt(pi) * exp(-x^2).
Tensor erf(const Tensor& x) {
  return record("ErfBackward", native::unary(UnaryOp::Erf, x), {x}, {x},
                [](const BackwardArgs& g) -> TensorList { return {g.grad() * exp(-square(g.saved[0])) * M_2_SQRTPI}; });
}

// Piecewise constant: the gradient is zero everywhere it exists.
Tensor sign(const Tensor& x) {
  return record("SignBackward", native::unary(UnaryOp::Sign, x), {x}, {},
                [](const BackwardArgs& g) -> TensorList { return {zeros_like(g.grad())}; });
}

}  // namespace brisk
