#include "autograd/backward_ops.h"

#include <cmath>

#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {

const char* activation_backward_name(BinaryOp op) {
  switch (op) {
#define BRISK_ACTIVATION_BACKWARD_NAME(Op, ...) \
  case BinaryOp::Op##Backward: return #Op "BackwardBackward";
    BRISK_ALL_ACTIVATION_OPS(BRISK_ACTIVATION_BACKWARD_NAME)
#undef BRISK_ACTIVATION_BACKWARD_NAME
    default: BRISK_FAIL("activation_backward: {} is not an activation backward", op_name(op));
  }
}

// d f'(s) / ds for the activation whose backward kernel is `op`; undefined when zero.
Tensor activation_second_derivative(BinaryOp op, const Tensor& s, OpParams p) {
  switch (op) {
    case BinaryOp::ReluBackward:
    case BinaryOp::LeakyReluBackward: return Tensor();
    case BinaryOp::SigmoidBackward:  // f' = y (1 - y)
      return 1.0 - 2.0 * s;
    case BinaryOp::TanhBackward:  // f' = 1 - y^2
      return -2.0 * s;
    case BinaryOp::GeluBackward: {  // f'' = phi(x) (2 - x^2)
      Tensor x2 = s * s;
      return exp(x2 * -0.5) * (1.0 / std::sqrt(2.0 * M_PI)) * (2.0 - x2);
    }
    case BinaryOp::GeluTanhBackward: {  // f = x/2 (1 + tanh(u)), u = k (x + c x^3)
      const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
      Tensor x2 = s * s;
      Tensor t = tanh((s + c * x2 * s) * k);
      Tensor du = (1.0 + 3.0 * c * x2) * k;
      Tensor d2u = s * (6.0 * k * c);
      return (1.0 - t * t) * (du + 0.5 * s * (d2u - 2.0 * t * du * du));
    }
    case BinaryOp::SiluBackward: {  // f'' = sigma (1 - sigma) (2 + x (1 - 2 sigma))
      Tensor sig = sigmoid(s);
      return sig * (1.0 - sig) * (2.0 + s * (1.0 - 2.0 * sig));
    }
    case BinaryOp::EluBackward:  // f'' = alpha e^x below zero
      return where(s.gt(0.0), zeros_like(s), exp(s) * p.a);
    case BinaryOp::SoftplusBackward: {  // f'' = beta sigma(beta x) (1 - sigma(beta x)) below the threshold
      Tensor sig = sigmoid(s * p.a);
      return where((s * p.a).gt(p.b), zeros_like(s), sig * (1.0 - sig) * p.a);
    }
    case BinaryOp::HardswishBackward:  // f'' = 1/3 on (-3, 3)
      return where(logical_and(s.gt(-3.0), s.lt(3.0)), full_like(s, 1.0 / 3.0), zeros_like(s));
    default: BRISK_FAIL("activation_backward: {} is not an activation backward", op_name(op));
  }
}

}  // namespace

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.sizes() == shape) return grad;
  return record(
      "SumToBackward", native::sum_to(grad, shape), {grad}, {},
      [grad_shape = grad.sizes()](const BackwardArgs& a) -> TensorList { return {a.grad().expand(grad_shape)}; });
}

Tensor slice_backward(const Tensor& grad, const Shape& input_shape, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  // In grad's layout: a channels_last model's gradient stays channels_last through a slice
  // (a contiguous one would turn the gradients that it is added to contiguous, and every
  // channels_last kernel after would convert them back).
  Tensor out = native::zeros(input_shape, grad.options().memory_format(grad.suggest_memory_format()));
  Tensor region = native::slice(out, dim, start, end, step);
  native::copy_(region, grad);
  return record("SliceBackwardBackward", out, {grad}, {},
                [=](const BackwardArgs& a) -> TensorList { return {a.grad().slice(dim, start, end, step)}; });
}

Tensor activation_backward(BinaryOp op, const Tensor& grad, const Tensor& saved, OpParams params) {
  Tensor out = native::binary(op, grad, saved, params);
  return record(activation_backward_name(op), out, {grad, saved}, {grad, saved},
                [op, params](const BackwardArgs& a) -> TensorList {
                  const Tensor& grad_grad = a.grad();
                  Tensor d_grad = a.needs_grad[0] ? activation_backward(op, grad_grad, a.saved[1], params) : Tensor();
                  Tensor d_saved;
                  if (a.needs_grad[1]) {
                    Tensor second = activation_second_derivative(op, a.saved[1], params);
                    if (second.defined()) d_saved = grad_grad * a.saved[0] * second;
                  }
                  return {d_grad, d_saved};
                });
}

}  // namespace brisk::autograd
