// Elementwise math functions of one tensor: the forwards generated from the math rows of
// tensor/op_table.h, and each row's derivative.
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::TensorList;

TensorList autograd::abs_backward(const BackwardArgs& g, const Tensor& x) { return {g.grad() * sign(x)}; }
TensorList autograd::exp_backward(const BackwardArgs& g, const Tensor& result) { return {g.grad() * result}; }
TensorList autograd::log_backward(const BackwardArgs& g, const Tensor& x) { return {g.grad() / x}; }
TensorList autograd::sqrt_backward(const BackwardArgs& g, const Tensor& result) { return {g.grad() / (result * 2.0)}; }
TensorList autograd::rsqrt_backward(const BackwardArgs& g, const Tensor& y) { return {g.grad() * y * y * y * -0.5}; }
TensorList autograd::square_backward(const BackwardArgs& g, const Tensor& x) { return {g.grad() * x * 2.0}; }
TensorList autograd::reciprocal_backward(const BackwardArgs& g, const Tensor& y) { return {-g.grad() * y * y}; }
TensorList autograd::sin_backward(const BackwardArgs& g, const Tensor& x) { return {g.grad() * cos(x)}; }
TensorList autograd::cos_backward(const BackwardArgs& g, const Tensor& x) { return {-g.grad() * sin(x)}; }
// Piecewise constant: the gradient is zero everywhere it exists.
TensorList autograd::sign_backward(const BackwardArgs& g, const Tensor&) { return {zeros_like(g.grad())}; }
// d/dx erf(x) = 2 / sqrt(pi) * exp(-x^2).
TensorList autograd::erf_backward(const BackwardArgs& g, const Tensor& x) {
  return {g.grad() * exp(-square(x)) * M_2_SQRTPI};
}

namespace {

using Derivative = TensorList (*)(const BackwardArgs&, const Tensor&);

Tensor math_function(UnaryOp op, const char* node, const Tensor& x_in, autograd::Saved saved, Derivative derivative) {
  auto [in, out] = autograd::run_row(op, x_in);
  const Tensor& x = in[0];
  Tensor kept = saved == autograd::Saved::Input ? x : saved == autograd::Saved::Output ? out : Tensor();
  return autograd::record(node, out, {x}, {kept},
                          [derivative](const BackwardArgs& g) { return derivative(g, g.saved[0]); });
}

}  // namespace

#define BRISK_UNARY_MATH_FUNCTION(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, saved)               \
  Tensor name(const Tensor& x) {                                                                             \
    return math_function(UnaryOp::Op, #Op "Backward", x, autograd::Saved::saved, autograd::name##_backward); \
  }
BRISK_UNARY_MATH_OPS(BRISK_UNARY_MATH_FUNCTION)
#undef BRISK_UNARY_MATH_FUNCTION

}  // namespace brisk
