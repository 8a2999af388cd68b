// Matrix products.
#include "autograd/autocast.h"
#include "autograd/backward_ops.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

Tensor save_if(bool needed, const Tensor& t) { return needed ? t : Tensor(); }

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

// [*, n] as [rows, n], rows the product of the batch dims (not reshape({-1, n}), which is
// ambiguous when n is 0: a layer of no features, as a tensor-parallel rank may hold).
Tensor fold_batch(const Tensor& t) {
  return t.reshape({shape_numel(Shape(t.sizes().begin(), t.sizes().end() - 1)), t.size(-1)});
}

// The gradients of matmul(a, b) for every case of its shapes. A 1-D operand is treated as
// a matrix (a row for `a`, a column for `b`) and the gradient of the output gets the
// matching unit dim back; then the batched formula holds, and summing to the operand's
// shape undoes the broadcast of batch dims. `a` is needed only for b's gradient and vice
// versa, so either may be undefined.
TensorList matmul_backward(const Tensor& grad, const Tensor& a, const Tensor& b, const Shape& a_shape,
                           const Shape& b_shape, bool need_a, bool need_b) {
  const bool a_vector = a_shape.size() == 1, b_vector = b_shape.size() == 1;
  Tensor g = grad;
  if (a_vector) g = g.unsqueeze(b_vector ? 0 : -2);
  if (b_vector) g = g.unsqueeze(-1);
  Tensor grad_a, grad_b;
  if (need_a) {
    Tensor b2 = b_vector ? b.unsqueeze(1) : b;
    Shape a2_shape = a_vector ? Shape{1, a_shape[0]} : a_shape;
    grad_a = autograd::sum_to(matmul(g, mT(b2)), a2_shape).reshape(a_shape);
  }
  if (need_b) {
    Tensor a2 = a_vector ? a.unsqueeze(0) : a;
    Shape b2_shape = b_vector ? Shape{b_shape[0], 1} : b_shape;
    if (b2_shape.size() == 2 && a2.dim() > 2) {
      // Folding the batch dims into the rows gives one large product instead of a batched
      // one followed by a sum (the usual case: a linear layer applied to a batch of sequences).
      grad_b = mm(fold_batch(a2).t(), fold_batch(g));
    } else {
      grad_b = autograd::sum_to(matmul(mT(a2), g), b2_shape);
    }
    grad_b = grad_b.reshape(b_shape);
  }
  return {grad_a, grad_b};
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::matmul, a_in, b_in);
  const Tensor &a = autocast_inputs[0], &b = autocast_inputs[1];
  Tensor out = native::matmul(a, b);
  return record("MatmulBackward", out, {a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
                [a_shape = a.sizes(), b_shape = b.sizes()](const BackwardArgs& g) -> TensorList {
                  return matmul_backward(g.grad(), g.saved[0], g.saved[1], a_shape, b_shape, g.needs_grad[0],
                                         g.needs_grad[1]);
                });
}

Tensor mm(const Tensor& a_in, const Tensor& b_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::mm, a_in, b_in);
  const Tensor &a = autocast_inputs[0], &b = autocast_inputs[1];
  Tensor out = native::mm(a, b);
  return record("MmBackward", out, {a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
                [](const BackwardArgs& g) -> TensorList {
                  return {g.needs_grad[0] ? mm(g.grad(), g.saved[1].t()) : Tensor(),
                          g.needs_grad[1] ? mm(g.saved[0].t(), g.grad()) : Tensor()};
                });
}

Tensor bmm(const Tensor& a_in, const Tensor& b_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::bmm, a_in, b_in);
  const Tensor &a = autocast_inputs[0], &b = autocast_inputs[1];
  Tensor out = native::bmm(a, b);
  return record("BmmBackward", out, {a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
                [](const BackwardArgs& g) -> TensorList {
                  return {g.needs_grad[0] ? bmm(g.grad(), mT(g.saved[1])) : Tensor(),
                          g.needs_grad[1] ? bmm(mT(g.saved[0]), g.grad()) : Tensor()};
                });
}

Tensor addmm(const Tensor& bias_in, const Tensor& a_in, const Tensor& b_in, Scalar beta, Scalar alpha) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::addmm, bias_in, a_in, b_in);
  const Tensor &bias = autocast_inputs[0], &a = autocast_inputs[1], &b = autocast_inputs[2];
  Tensor out = native::addmm(bias, a, b, beta, alpha);
  return record("AddmmBackward", out, {bias, a, b}, {save_if(b.requires_grad(), a), save_if(a.requires_grad(), b)},
                [beta, alpha](const BackwardArgs& g) -> TensorList {
                  const Tensor& grad = g.grad();
                  auto scaled = [](const Tensor& t, Scalar s) { return s.to_double() == 1.0 ? t : t * s; };
                  return {g.needs_grad[0] ? scaled(grad, beta) : Tensor(),
                          g.needs_grad[1] ? scaled(mm(grad, g.saved[1].t()), alpha) : Tensor(),
                          g.needs_grad[2] ? scaled(mm(g.saved[0].t(), grad), alpha) : Tensor()};
                });
}

}  // namespace brisk
