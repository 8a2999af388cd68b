// Activation functions and (log-)softmax. An activation's backward runs the fused kernel of its
// row (tensor/op_table.h); under create_graph it is itself differentiable
// (autograd/backward_ops.h).
#include "autograd/autocast.h"
#include "autograd/backward_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// The activation rows' backward kernels and what they read.
struct ActivationRow {
  BinaryOp backward;
  autograd::Saved saved;
};

ActivationRow activation_row(UnaryOp op) {
  switch (op) {
#define BRISK_ACTIVATION_CASE(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, saved) \
  case UnaryOp::Op: return {BinaryOp::Op##Backward, autograd::Saved::saved};
    BRISK_ALL_ACTIVATION_OPS(BRISK_ACTIVATION_CASE)
#undef BRISK_ACTIVATION_CASE
    default: BRISK_FAIL("{} is not an activation row of tensor/op_table.h", op_name(op));
  }
}

// Runs the activation `op` on x and records `node`, whose gradient is its row's backward kernel.
Tensor activation(UnaryOp op, const char* node, const Tensor& x_in, OpParams params = {}) {
  auto [in, out] = autograd::run_row(op, x_in, params);
  ActivationRow row = activation_row(op);
  const Tensor& x = in[0];
  return record(node, out, {x}, {row.saved == autograd::Saved::Output ? out : x},
                [backward = row.backward, params](const BackwardArgs& g) -> TensorList {
                  return {autograd::activation_backward(backward, g.grad(), g.saved[0], params)};
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

#define BRISK_ACTIVATION_FUNCTION(Op, name, ...) \
  Tensor name(const Tensor& x) { return activation(UnaryOp::Op, #Op "Backward", x); }
BRISK_ACTIVATION_OPS(BRISK_ACTIVATION_FUNCTION)
#undef BRISK_ACTIVATION_FUNCTION

Tensor gelu(const Tensor& x, const std::string& approximate) {
  BRISK_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be \"none\" or \"tanh\", got \"{}\"", approximate);
  return activation(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, "GeluBackward", x);
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return activation(UnaryOp::LeakyRelu, "LeakyReluBackward", x, {negative_slope});
}

Tensor elu(const Tensor& x, double alpha) { return activation(UnaryOp::Elu, "EluBackward", x, {alpha}); }

Tensor softplus(const Tensor& x, double beta, double threshold) {
  BRISK_CHECK(beta != 0.0, "softplus: beta must not be 0");
  return activation(UnaryOp::Softplus, "SoftplusBackward", x, {beta, threshold});
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
