// Comparisons and logical ops: bool results, no gradient.
#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk {

Tensor eq(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::Ge, a, b); }
Tensor logical_not(const Tensor& x) { return native::unary(UnaryOp::LogicalNot, x); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::LogicalAnd, a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return native::binary(BinaryOp::LogicalOr, a, b); }

Tensor Tensor::eq(Scalar other) const { return native::binary(BinaryOp::Eq, *this, other); }
Tensor Tensor::ne(Scalar other) const { return native::binary(BinaryOp::Ne, *this, other); }
Tensor Tensor::lt(Scalar other) const { return native::binary(BinaryOp::Lt, *this, other); }
Tensor Tensor::le(Scalar other) const { return native::binary(BinaryOp::Le, *this, other); }
Tensor Tensor::gt(Scalar other) const { return native::binary(BinaryOp::Gt, *this, other); }
Tensor Tensor::ge(Scalar other) const { return native::binary(BinaryOp::Ge, *this, other); }

bool equal(const Tensor& a, const Tensor& b) { return native::equal(a, b); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) { return native::allclose(a, b, rtol, atol); }

}  // namespace brisk
