#pragma once
// Running an elementwise row of tensor/op_table.h from a differentiable op: the inputs cast as
// the row's CpuCast and CudaCast columns say when autocast is on (autograd/autocast.h), then the
// native op. The op records its history on the inputs as cast, so gradients flow back through
// the casts to the tensors as they were passed in.
//
//   Tensor addcmul(const Tensor& x, const Tensor& a, const Tensor& b, Scalar value) {
//     auto [in, out] = autograd::run_row(TernaryOp::Addcmul, x, a, b, OpParams{value.to_double()});
//     return record("AddcmulBackward", out, {in[0], in[1], in[2]}, ...);
//   }
#include <array>
#include <cstddef>

#include "tensor/op_kinds.h"
#include "tensor/scalar.h"
#include "tensor/tensor.h"

namespace brisk::autograd {

// What the derivative of a math or activation row reads: the Saved column.
enum class Saved { Input, Output, Nothing };

// The inputs as the op ran on them (the casts, or the arguments) and its result.
template <size_t N>
struct RowResult {
  std::array<Tensor, N> in;
  Tensor out;
};

RowResult<1> run_row(UnaryOp op, const Tensor& x, OpParams params = {});
RowResult<2> run_row(BinaryOp op, const Tensor& a, const Tensor& b, OpParams params = {});
// A number operand is never cast: `in` holds the tensor operand only.
RowResult<1> run_row(BinaryOp op, const Tensor& a, Scalar b, OpParams params = {});
RowResult<1> run_row(BinaryOp op, Scalar a, const Tensor& b, OpParams params = {});
RowResult<3> run_row(TernaryOp op, const Tensor& a, const Tensor& b, const Tensor& c, OpParams params = {});

// Runs the activation row `op` and records its node, Op##Backward, whose gradient is the row's
// fused backward kernel with the same params: the activation functions of autograd/ops.h.
Tensor run_activation(UnaryOp op, const Tensor& x, OpParams params = {});

}  // namespace brisk::autograd
