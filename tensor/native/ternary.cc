// Three-operand elementwise native ops: where, masked_fill, clamp with tensor bounds,
// addcmul and addcdiv.
#include <cmath>

#include "tensor/backend.h"
#include "tensor/native/operands.h"

namespace brisk::native {
namespace {

Shape broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  return broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), op), c.sizes(), op);
}

void check_bool_condition(const char* op, const char* what, const Tensor& cond) {
  BRISK_CHECK(cond.dtype() == kBool, "{}: expected {} to be a bool tensor, but got {}", op, what, cond.describe());
}

DType ternary_compute_type(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c, OpParams p) {
  DType compute = result_type(std::vector<Tensor>{a, b, c});
  if (op == TernaryOp::Addcdiv) {
    BRISK_CHECK(is_floating_point(compute),
                "addcdiv: integer division is not supported; convert the tensors to a floating point dtype first "
                "({}, {}, {})",
                a.describe(), b.describe(), c.describe());
  }
  if (op == TernaryOp::Addcmul) {
    BRISK_CHECK(is_floating_point(compute) || p.a == std::trunc(p.a),
                "addcmul: for integral input tensors, argument value must not be a floating point number (got {})",
                p.a);
  }
  return compute;
}

}  // namespace

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_bool_condition("where", "the condition", cond);
  Device device = common_device("where", {cond, a, b});
  DType dtype = result_type(a, b);
  Shape shape = broadcast3(cond, a, b, "where");
  Tensor out = detail::new_output(shape, dtype, device, {cond, a, b});
  backend_for(device).ternary(TernaryOp::Where, out, detail::operand(cond, kBool, device, shape),
                              detail::operand(a, dtype, device, shape), detail::operand(b, dtype, device, shape), {});
  return out;
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value) {
  check_bool_condition("masked_fill", "the mask", mask);
  detail::check_fits("masked_fill", value, t.dtype());
  Device device = common_device("masked_fill", {t, mask});
  Shape shape = broadcast_shapes(t.sizes(), mask.sizes(), "masked_fill");
  Tensor out = detail::new_output(shape, t.dtype(), device, {t, mask});
  backend_for(device).ternary(TernaryOp::Where, out, detail::operand(mask, kBool, device, shape),
                              expand(detail::scalar_operand(value, t.dtype(), device), shape),
                              detail::operand(t, t.dtype(), device, shape), {});
  return out;
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, Scalar value) {
  check_bool_condition("masked_fill_", "the mask", mask);
  detail::check_fits("masked_fill_", value, self.dtype());
  Device device = detail::inplace_device("masked_fill_", self, {mask});
  detail::check_inplace_output("masked_fill_", self, broadcast_shapes(self.sizes(), mask.sizes(), "masked_fill_"));
  Tensor m = detail::operand(mask, kBool, device, self.sizes());
  if (detail::partially_overlaps(self, m)) m = clone(m);
  Tensor fill = expand(detail::scalar_operand(value, self.dtype(), device), self.sizes());
  backend_for(device).ternary(TernaryOp::Where, self, m, fill, self, {});
  return self;
}

Tensor ternary(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c, OpParams p) {
  if (op == TernaryOp::Where) return where(a, b, c);
  const char* name = op_name(op);
  Device device = common_device(name, {a, b, c});
  DType compute = ternary_compute_type(op, a, b, c, p);
  Shape shape = broadcast3(a, b, c, name);
  Tensor out = detail::new_output(shape, compute, device, {a, b, c});
  backend_for(device).ternary(op, out, detail::operand(a, compute, device, shape),
                              detail::operand(b, compute, device, shape), detail::operand(c, compute, device, shape),
                              p);
  return out;
}

Tensor& ternary_(TernaryOp op, Tensor& self, const Tensor& b, const Tensor& c, OpParams p) {
  const char* name = op_name(op);
  BRISK_CHECK(op != TernaryOp::Where, "where: has no in-place form; use masked_fill_ or copy_ with where()");
  Device device = detail::inplace_device(name, self, {b, c});
  DType compute = ternary_compute_type(op, self, b, c, p);
  detail::check_can_cast(name, compute, self.dtype());
  detail::check_inplace_output(name, self, broadcast3(self, b, c, name));
  bool direct = compute == self.dtype() && !detail::partially_overlaps(self, b) && !detail::partially_overlaps(self, c);
  if (!direct) return copy_(self, ternary(op, self, b, c, p));
  backend_for(device).ternary(op, self, self, detail::operand(b, compute, device, self.sizes()),
                              detail::operand(c, compute, device, self.sizes()), p);
  return self;
}

}  // namespace brisk::native
