// In-place ops. Each bumps the version counter (so saved tensors notice the change) and,
// when history is recorded, rebases the tensor's history onto a node for the op. Refused in
// grad mode on a leaf that requires grad and on a view of a tensor that requires grad.
// An op with an out-of-place twin uses the twin's derivative rule (derivatives.h).
#include <cmath>

#include "autograd/backward_ops.h"
#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "autograd/inplace.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::modify;
using autograd::needs_history;
using autograd::rebase_history;
using autograd::TensorList;

namespace {

// Self's value before the change, for a gradient that reads it; a clone that records history,
// so that under create_graph the gradient still depends on the old self. Taken only when
// `needed`: it costs a copy.
Tensor value_before_change(const Tensor& self, bool needed) { return needed ? self.clone() : Tensor(); }

// An in-place math or activation row. Its derivative reads what the row's Saved column names:
// self's value before the change, self after it (the result), or nothing.
template <typename Derivative>
Tensor& unary_row_(Tensor& self, UnaryOp op, const char* name, const char* node, autograd::Saved saved,
                   Derivative derivative) {
  Tensor input = value_before_change(self, saved == autograd::Saved::Input && needs_history({self}));
  modify(self, name, [&] { native::unary_(op, self); });
  rebase_history(node, self, {self}, {saved == autograd::Saved::Output ? self : input},
                 [derivative](const BackwardArgs& g) -> TensorList { return derivative(g, g.saved[0]); });
  return self;
}

// fill_ and zero_.
Tensor& fill(Tensor& self, Scalar value, const char* op) {
  modify(self, op, [&] { native::fill_(self, value); });
  rebase_history("FillBackward", self, {self}, {},
                 [](const BackwardArgs& g) -> TensorList { return {zeros_like(g.grad())}; });
  return self;
}

}  // namespace

void autograd::check_inplace(const Tensor& self, const char* op) {
  if (!autograd::GradMode::is_enabled()) return;
  const AutogradMeta* meta = self.autograd_meta_if_exists();
  if (meta == nullptr) return;
  BRISK_CHECK(!(meta->requires_grad && meta->grad_fn == nullptr),
              "{}: a leaf Variable that requires grad is being used in an in-place operation. ({})", op,
              self.describe());
  BRISK_CHECK(!meta->is_view,
              "{}: a view of a tensor that requires grad is being modified in place ({}); its base's gradient "
              "would miss the change. clone() the view first, or modify it under NoGradGuard.",
              op, self.describe());
}

Tensor& Tensor::add_(const Tensor& other, Scalar alpha) {
  modify(*this, "add_", [&] { native::binary_(BinaryOp::Add, *this, other, OpParams{alpha.to_double()}); });
  rebase_history("AddBackward", *this, {*this, other}, {},
                 [alpha](const BackwardArgs& g) { return autograd::add_backward(g, alpha); });
  return *this;
}

Tensor& Tensor::add_(Scalar other) {
  modify(*this, "add_", [&] { native::binary_(BinaryOp::Add, *this, other, OpParams{1.0}); });
  rebase_history("AddBackward", *this, {*this}, {}, autograd::add_scalar_backward);
  return *this;
}

Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) {
  modify(*this, "sub_", [&] { native::binary_(BinaryOp::Sub, *this, other, OpParams{alpha.to_double()}); });
  rebase_history("SubBackward", *this, {*this, other}, {},
                 [alpha](const BackwardArgs& g) { return autograd::add_backward(g, -alpha.to_double()); });
  return *this;
}

Tensor& Tensor::sub_(Scalar other) {
  modify(*this, "sub_", [&] { native::binary_(BinaryOp::Sub, *this, other, OpParams{1.0}); });
  rebase_history("SubBackward", *this, {*this}, {}, autograd::add_scalar_backward);
  return *this;
}

Tensor& Tensor::mul_(const Tensor& other) {
  Tensor original = value_before_change(*this, needs_history({other}));
  modify(*this, "mul_", [&] { native::binary_(BinaryOp::Mul, *this, other); });
  rebase_history("MulBackward", *this, {*this, other}, {original, other},
                 [](const BackwardArgs& g) { return autograd::mul_backward(g, g.saved[0], g.saved[1]); });
  return *this;
}

Tensor& Tensor::mul_(Scalar other) {
  modify(*this, "mul_", [&] { native::binary_(BinaryOp::Mul, *this, other); });
  rebase_history("MulBackward", *this, {*this}, {},
                 [other](const BackwardArgs& g) { return autograd::mul_scalar_backward(g, other); });
  return *this;
}

Tensor& Tensor::div_(const Tensor& other) {
  Tensor original = value_before_change(*this, needs_history({other}));
  modify(*this, "div_", [&] { native::binary_(BinaryOp::Div, *this, other); });
  rebase_history("DivBackward", *this, {*this, other}, {original, other},
                 [](const BackwardArgs& g) { return autograd::div_backward(g, g.saved[0], g.saved[1]); });
  return *this;
}

Tensor& Tensor::div_(Scalar other) {
  modify(*this, "div_", [&] { native::binary_(BinaryOp::Div, *this, other); });
  rebase_history("DivBackward", *this, {*this}, {},
                 [other](const BackwardArgs& g) { return autograd::div_scalar_backward(g, other); });
  return *this;
}

Tensor& Tensor::pow_(Scalar exponent) {
  Tensor original = value_before_change(*this, needs_history({*this}));
  modify(*this, "pow_", [&] { native::binary_(BinaryOp::Pow, *this, exponent); });
  rebase_history("PowBackward", *this, {*this}, {original},
                 [exponent](const BackwardArgs& g) { return autograd::pow_scalar_backward(g, g.saved[0], exponent); });
  return *this;
}

Tensor& Tensor::neg_() {
  modify(*this, "neg_", [&] { native::unary_(UnaryOp::Neg, *this); });
  rebase_history("NegBackward", *this, {*this}, {}, autograd::neg_backward);
  return *this;
}

#define BRISK_MATH_INPLACE(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, saved)      \
  Tensor& Tensor::name##_() {                                                                \
    return unary_row_(*this, UnaryOp::Op, #name "_", #Op "Backward", autograd::Saved::saved, \
                      autograd::name##_backward);                                            \
  }
BRISK_UNARY_MATH_OPS(BRISK_MATH_INPLACE)
#undef BRISK_MATH_INPLACE
#define BRISK_ACTIVATION_INPLACE(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, saved)        \
  Tensor& Tensor::name##_() {                                                                        \
    return unary_row_(*this, UnaryOp::Op, #name "_", #Op "Backward", autograd::Saved::saved,         \
                      [](const BackwardArgs& g, const Tensor& s) -> TensorList {                     \
                        return {autograd::activation_backward(BinaryOp::Op##Backward, g.grad(), s)}; \
                      });                                                                            \
  }
BRISK_ACTIVATION_OPS(BRISK_ACTIVATION_INPLACE)
#undef BRISK_ACTIVATION_INPLACE

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  BRISK_CHECK(min || max, "clamp_: at least one of min and max must be given (tensor {})", describe());
  Tensor passes = needs_history({*this}) ? autograd::clamp_passes(*this, min, max) : Tensor();
  OpParams params{min ? min->to_double() : -INFINITY, max ? max->to_double() : INFINITY};
  modify(*this, "clamp_", [&] { native::unary_(UnaryOp::Clamp, *this, params); });
  rebase_history("ClampBackward", *this, {*this}, {passes},
                 [](const BackwardArgs& g) { return autograd::clamp_backward(g, g.saved[0]); });
  return *this;
}

Tensor& Tensor::addcmul_(const Tensor& a, const Tensor& b, Scalar value) {
  modify(*this, "addcmul_", [&] { native::ternary_(TernaryOp::Addcmul, *this, a, b, OpParams{value.to_double()}); });
  Tensor saved_a = b.requires_grad() ? a : Tensor();
  Tensor saved_b = a.requires_grad() ? b : Tensor();
  rebase_history("AddcmulBackward", *this, {*this, a, b}, {saved_a, saved_b}, [value](const BackwardArgs& g) {
    return autograd::addcmul_backward(g, g.saved[0], g.saved[1], value);
  });
  return *this;
}

Tensor& Tensor::addcdiv_(const Tensor& a, const Tensor& b, Scalar value) {
  modify(*this, "addcdiv_", [&] { native::ternary_(TernaryOp::Addcdiv, *this, a, b, OpParams{value.to_double()}); });
  Tensor saved_a = b.requires_grad() ? a : Tensor();
  rebase_history("AddcdivBackward", *this, {*this, a, b}, {saved_a, b}, [value](const BackwardArgs& g) {
    return autograd::addcdiv_backward(g, g.saved[0], g.saved[1], value);
  });
  return *this;
}

Tensor& Tensor::lerp_(const Tensor& end, Scalar weight) {
  modify(*this, "lerp_", [&] { native::binary_(BinaryOp::Lerp, *this, end, {weight.to_double()}); });
  rebase_history("LerpBackward", *this, {*this, end}, {},
                 [weight](const BackwardArgs& g) { return autograd::lerp_backward(g, weight); });
  return *this;
}

Tensor& Tensor::masked_fill_(const Tensor& mask, Scalar value) {
  Tensor filled = native::masked_fill(*this, mask, value);
  BRISK_CHECK(filled.sizes() == sizes(), "masked_fill_: mask of shape {} does not broadcast to the tensor's shape {}",
              mask.sizes(), sizes());
  modify(*this, "masked_fill_", [&] { native::copy_(*this, filled); });
  rebase_history("MaskedFillBackward", *this, {*this}, {mask},
                 [](const BackwardArgs& g) { return autograd::masked_fill_backward(g, g.saved[0]); });
  return *this;
}

Tensor& Tensor::fill_(Scalar value) { return fill(*this, value, "fill_"); }
Tensor& Tensor::zero_() { return fill(*this, 0, "zero_"); }

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  modify(*this, "copy_", [&] { native::copy_(*this, src, non_blocking); });
  // A src that is not floating point does not require grad: only self's old history gets one.
  rebase_history("CopyBackward", *this, {*this, src}, {},
                 [src_device = src.device(), src_dtype = src.dtype()](const BackwardArgs& g) -> TensorList {
                   return {g.needs_grad[0] ? zeros_like(g.grad()) : Tensor(),
                           g.needs_grad[1] ? g.grad().to(src_device, src_dtype) : Tensor()};
                 });
  return *this;
}

// ---- Compound assignment ----

Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, Scalar b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, Scalar b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, Scalar b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, Scalar b) { return a.div_(b); }

}  // namespace brisk
