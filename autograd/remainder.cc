// remainder and fmod: the remainder of a / b with the sign of b (Python's %) or of a (C's fmod).
// a = q * b + r with q = floor(a / b) (remainder) or trunc(a / b) (fmod), so the gradient is
// grad for a and -grad * q for b, as PyTorch's.
#include "autograd/derivatives.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "autograd/row_op.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// PyTorch raises for an integer division by zero on the CPU; Brisk does on every device, reading
// back one count (integer remainders are not on a training step's path, where the wait would
// matter). The kernels give 0 for it, so the check is the only place that knows.
void check_integer_divisor(const char* name, DType result, const Tensor& divisor) {
  if (!is_integral(result, /*include_bool=*/false)) return;
  Tensor zeros = native::binary(BinaryOp::Eq, divisor, Scalar(0));
  BRISK_CHECK(native::reduce(ReduceOp::Sum, zeros, {}, false).item<int64_t>() == 0,
              "{}: integer division by zero (the divisor {} holds a 0)", name, divisor.describe());
}

void check_integer_divisor(const char* name, DType result, Scalar divisor) {
  BRISK_CHECK(!is_integral(result, /*include_bool=*/false) || divisor.to_double() != 0.0,
              "{}: integer division by zero", name);
}

// The quotient q = (a - r) / b given a - r: exact up to rounding, so a quotient within an ulp
// of an integer is not rounded to it as PyTorch's floor division does; b's gradient can differ
// from PyTorch's by that ulp.
Tensor quotient(const Tensor& a_minus_r, const Tensor& b) { return native::binary(BinaryOp::Div, a_minus_r, b); }

Tensor record_remainder(BinaryOp op, const char* backward_name, const Tensor& a_in, const Tensor& b_in) {
  check_integer_divisor(op_name(op), native::result_type(a_in, b_in), b_in);
  auto [in, out] = autograd::run_row(op, a_in, b_in);
  const Tensor &a = in[0], &b = in[1];
  bool b_wants_grad = b.requires_grad();
  return record(backward_name, out, {a, b}, {b_wants_grad ? a : Tensor(), b_wants_grad ? b : Tensor()},
                [op](const BackwardArgs& g) -> TensorList {
                  Tensor grad_b;
                  if (g.needs_grad[1]) {
                    const Tensor& a = g.saved[0];
                    const Tensor& b = g.saved[1];
                    Tensor r = native::binary(op, a, b);
                    grad_b = -g.grad() * quotient(native::binary(BinaryOp::Sub, a, r, OpParams{1.0}), b);
                  }
                  return {g.grad(), grad_b};
                });
}

// remainder or fmod by a number: the gradient passes to a unchanged.
Tensor record_remainder(BinaryOp op, const char* backward_name, const Tensor& a, Scalar b) {
  check_integer_divisor(op_name(op), native::result_type(a, b), b);
  auto [in, out] = autograd::run_row(op, a, b);
  return record(backward_name, out, {in[0]}, {}, autograd::add_scalar_backward);
}

}  // namespace

Tensor remainder(const Tensor& a, const Tensor& b) {
  return record_remainder(BinaryOp::Remainder, "RemainderBackward", a, b);
}

Tensor remainder(const Tensor& a, Scalar b) { return record_remainder(BinaryOp::Remainder, "RemainderBackward", a, b); }

Tensor remainder(Scalar a, const Tensor& b_in) {
  check_integer_divisor("remainder", native::result_type(b_in, a), b_in);
  auto [in, out] = autograd::run_row(BinaryOp::Remainder, a, b_in);
  return record("RemainderBackward", out, {in[0]}, {in[0], out}, [a](const BackwardArgs& g) -> TensorList {
    Tensor a_minus_r = native::binary(BinaryOp::Sub, a, g.saved[1], OpParams{1.0});
    return {-g.grad() * quotient(a_minus_r, g.saved[0])};
  });
}

Tensor fmod(const Tensor& a, const Tensor& b) { return record_remainder(BinaryOp::Fmod, "FmodBackward", a, b); }

Tensor fmod(const Tensor& a, Scalar b) { return record_remainder(BinaryOp::Fmod, "FmodBackward", a, b); }

}  // namespace brisk
