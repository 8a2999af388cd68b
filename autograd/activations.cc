// The forward of every activation row (the functions autograd/ops.h generates call it), gelu,
// and (log-)softmax. An activation's backward runs the fused kernel of its row
// (tensor/op_table.h); under create_graph it is itself differentiable (autograd/backward_ops.h).
#include "autograd/autocast.h"
#include "autograd/backward_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::AutocastOp;
using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// The activation rows' backward kernels, what they read and the name of their node.
struct ActivationRow {
  BinaryOp backward;
  autograd::Saved saved;
  const char* node;
};

ActivationRow activation_row(UnaryOp op) {
  switch (op) {
#define BRISK_ACTIVATION_CASE(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, saved, ...) \
  case UnaryOp::Op: return {BinaryOp::Op##Backward, autograd::Saved::saved, #Op "Backward"};
    BRISK_ALL_ACTIVATION_OPS(BRISK_ACTIVATION_CASE)
#undef BRISK_ACTIVATION_CASE
    default: BRISK_FAIL("{} is not an activation row of tensor/op_table.h", op_name(op));
  }
}

// The backward of softmax (or log_softmax) given its output y. The native kernel is not
// differentiable, so under create_graph the same formula runs as composite ops.
Tensor softmax_grad(const Tensor& grad, const Tensor& y, int64_t dim, bool log) {
  if (!autograd::GradMode::is_enabled()) return native::softmax_backward(grad, y, dim, log);
  if (log) return grad - exp(y) * sum(grad, {dim}, true);
  return y * (grad - sum(grad * y, {dim}, true));
}

// softmax, or log_softmax when `log`.
Tensor softmax_op(const Tensor& x_in, int64_t dim, bool log) {
  autograd::AutocastInputs autocast_inputs(log ? AutocastOp::log_softmax : AutocastOp::softmax, x_in);
  const Tensor& x = autocast_inputs[0];
  int64_t d = wrap_dim(dim, x.dim(), log ? "log_softmax" : "softmax");
  Tensor out = native::softmax(x, d, log);
  return record(log ? "LogSoftmaxBackward" : "SoftmaxBackward", out, {x}, {out},
                [d, log](const BackwardArgs& g) -> TensorList { return {softmax_grad(g.grad(), g.saved[0], d, log)}; });
}

}  // namespace

Tensor autograd::run_activation(UnaryOp op, const Tensor& x_in, OpParams params) {
  auto [in, out] = run_row(op, x_in, params);
  ActivationRow row = activation_row(op);
  const Tensor& x = in[0];
  return record(row.node, out, {x}, {row.saved == Saved::Output ? out : x},
                [backward = row.backward, params](const BackwardArgs& g) -> TensorList {
                  return {activation_backward(backward, g.grad(), g.saved[0], params)};
                });
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  BRISK_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be \"none\" or \"tanh\", got \"{}\"", approximate);
  return autograd::run_activation(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
}

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_op(x, dim, false); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_op(x, dim, true); }

}  // namespace brisk
