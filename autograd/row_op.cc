#include "autograd/row_op.h"

#include "autograd/autocast.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

RowResult<1> run_row(UnaryOp op, const Tensor& x, OpParams params) {
  AutocastInputs in(op, x);
  return {{in[0]}, native::unary(op, in[0], params)};
}

RowResult<2> run_row(BinaryOp op, const Tensor& a, const Tensor& b, OpParams params) {
  AutocastInputs in(op, a, b);
  return {{in[0], in[1]}, native::binary(op, in[0], in[1], params)};
}

RowResult<1> run_row(BinaryOp op, const Tensor& a, Scalar b, OpParams params) {
  AutocastInputs in(op, a);
  return {{in[0]}, native::binary(op, in[0], b, params)};
}

RowResult<1> run_row(BinaryOp op, Scalar a, const Tensor& b, OpParams params) {
  AutocastInputs in(op, b);
  return {{in[0]}, native::binary(op, a, in[0], params)};
}

RowResult<3> run_row(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c, OpParams params) {
  AutocastInputs in(op, a, b, c);
  return {{in[0], in[1], in[2]}, native::ternary(op, in[0], in[1], in[2], params)};
}

}  // namespace brisk::autograd
