// Activation functions and (log-)softmax. Their backward runs one fused kernel; under
// create_graph it is itself differentiable (autograd/backward_ops.h).
#include "autograd/autocast.h"
#include "autograd/backward_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::activation_backward;
using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// Records an activation whose gradient is activation_backward(op, grad, saved, params).
Tensor record_activation(const char* name, const Tensor& out, const Tensor& x, BinaryOp op, const Tensor& saved,
                         OpParams params = {}) {
  return record(name, out, {x}, {saved}, [op, params](const BackwardArgs& g) -> TensorList {
    return {activation_backward(op, g.grad(), g.saved[0], params)};
  });
}

// The backward of softmax (or log_softmax) given its output y. The native kernel is not
// differentiable, so under create_graph the same formula runs as composite ops.
Tensor softmax_grad(const Tensor& grad, const Tensor& y, int64_t dim, bool log) {
  if (!autograd::GradMode::is_enabled()) return native::softmax_backward(grad, y, dim, log);
  if (log) return grad - exp(y) * sum(grad, {dim}, true);
  return y * (grad - sum(grad * y, {dim}, true));
}

}  // namespace

Tensor relu(const Tensor& x) {
  Tensor out = native::unary(UnaryOp::Relu, x);
  // relu(x) > 0 exactly where x > 0, so the output serves as the saved input.
  return record_activation("ReluBackward", out, x, BinaryOp::ReluBackward, out);
}

Tensor sigmoid(const Tensor& x) {
  Tensor out = native::unary(UnaryOp::Sigmoid, x);
  return record_activation("SigmoidBackward", out, x, BinaryOp::SigmoidBackward, out);
}

Tensor tanh(const Tensor& x) {
  Tensor out = native::unary(UnaryOp::Tanh, x);
  return record_activation("TanhBackward", out, x, BinaryOp::TanhBackward, out);
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  BRISK_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be \"none\" or \"tanh\", got \"{}\"", approximate);
  bool tanh_form = approximate == "tanh";
  Tensor out = native::unary(tanh_form ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
  return record_activation("GeluBackward", out, x, tanh_form ? BinaryOp::GeluTanhBackward : BinaryOp::GeluBackward, x);
}

Tensor silu(const Tensor& x) {
  return record_activation("SiluBackward", native::unary(UnaryOp::Silu, x), x, BinaryOp::SiluBackward, x);
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  OpParams params{negative_slope};
  return record_activation("LeakyReluBackward", native::unary(UnaryOp::LeakyRelu, x, params), x,
                           BinaryOp::LeakyReluBackward, x, params);
}

Tensor elu(const Tensor& x, double alpha) {
  OpParams params{alpha};
  return record_activation("EluBackward", native::unary(UnaryOp::Elu, x, params), x, BinaryOp::EluBackward, x, params);
}

Tensor softplus(const Tensor& x_in, double beta, double threshold) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::softplus, x_in);
  const Tensor& x = autocast_inputs[0];
  BRISK_CHECK(beta != 0.0, "softplus: beta must not be 0");
  OpParams params{beta, threshold};
  return record_activation("SoftplusBackward", native::unary(UnaryOp::Softplus, x, params), x,
                           BinaryOp::SoftplusBackward, x, params);
}

Tensor hardswish(const Tensor& x) {
  return record_activation("HardswishBackward", native::unary(UnaryOp::Hardswish, x), x, BinaryOp::HardswishBackward,
                           x);
}

Tensor softmax(const Tensor& x_in, int64_t dim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::softmax, x_in);
  const Tensor& x = autocast_inputs[0];
  int64_t d = wrap_dim(dim, x.dim(), "softmax");
  Tensor out = native::softmax(x, d, false);
  return record("SoftmaxBackward", out, {x}, {out},
                [d](const BackwardArgs& g) -> TensorList { return {softmax_grad(g.grad(), g.saved[0], d, false)}; });
}

Tensor log_softmax(const Tensor& x_in, int64_t dim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::log_softmax, x_in);
  const Tensor& x = autocast_inputs[0];
  int64_t d = wrap_dim(dim, x.dim(), "log_softmax");
  Tensor out = native::softmax(x, d, true);
  return record("LogSoftmaxBackward", out, {x}, {out},
                [d](const BackwardArgs& g) -> TensorList { return {softmax_grad(g.grad(), g.saved[0], d, true)}; });
}

}  // namespace brisk
