#pragma once
// Differentiable ops that appear only inside backward formulas. Each is recorded like any
// other op, so gradients computed under create_graph can be differentiated again.
#include <optional>

#include "tensor/op_kinds.h"
#include "tensor/tensor.h"

namespace brisk::autograd {

// Sums `grad` down to `shape`, undoing a broadcast (backward: expand).
Tensor sum_to(const Tensor& grad, const Shape& shape);

// Zeros of `input_shape` with `grad` written into the region that slice took (backward: the
// slice itself).
Tensor slice_backward(const Tensor& grad, const Shape& input_shape, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);

// grad * f'(saved) for an activation f by its fused kernel `op` (one of the *Backward rows of
// tensor/op_table.h; `saved` is the input or the output as the table says, `params` the
// forward's numbers). Differentiable in both arguments.
Tensor activation_backward(BinaryOp op, const Tensor& grad, const Tensor& saved, OpParams params = {});

}  // namespace brisk::autograd
