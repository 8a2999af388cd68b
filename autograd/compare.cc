// Comparisons and logical ops: bool results, no gradient.
#include "autograd/ops.h"
#include "autograd/row_op.h"
#include "tensor/native/ops.h"

namespace brisk {

#define BRISK_COMPARISON_FUNCTION(Op, name, ...)                                                               \
  Tensor name(const Tensor& a, const Tensor& b) { return autograd::run_row(BinaryOp::Op, a, b).out; }          \
  Tensor Tensor::name(const Tensor& other) const { return autograd::run_row(BinaryOp::Op, *this, other).out; } \
  Tensor Tensor::name(Scalar other) const { return autograd::run_row(BinaryOp::Op, *this, other).out; }
BRISK_COMPARISON_OPS(BRISK_COMPARISON_FUNCTION)
#undef BRISK_COMPARISON_FUNCTION

Tensor logical_not(const Tensor& x) { return autograd::run_row(UnaryOp::LogicalNot, x).out; }

bool equal(const Tensor& a, const Tensor& b) { return native::equal(a, b); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) { return native::allclose(a, b, rtol, atol); }

}  // namespace brisk
