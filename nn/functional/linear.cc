// linear is one op with its own backward, as PyTorch's: the input's leading dims are folded
// into the rows of one GEMM, and the weight's gradient is computed as grad^T @ input,
// [out_features, in_features] like the weight, so AccumulateGrad keeps it as .grad instead of
// copying the transposed gradient that addmm(input, weight.t()) would hand back through its
// TransposeBackward.
#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::TensorList;

namespace {

// The shape of t [*, n] as rows [rows, n], rows the product of the leading dims (1 for a 1-D
// t); not {-1, n}, which is ambiguous when n is 0 (a tensor-parallel rank may hold no features).
Shape rows_shape(const Tensor& t) { return {shape_numel(Shape(t.sizes().begin(), t.sizes().end() - 1)), t.size(-1)}; }

Tensor save_if(bool needed, const Tensor& t) { return needed ? t : Tensor(); }

}  // namespace

Tensor linear(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::linear, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  BRISK_CHECK(weight.dim() == 2, "linear: expected a 2-D weight [out_features, in_features], got {}",
              weight.describe());
  BRISK_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1),
              "linear: input {} should have {} features in its last dim (weight {})", input.describe(), weight.size(1),
              weight.sizes());
  BRISK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
              "linear: bias {} should have shape [{}] (weight {})", bias.describe(), weight.size(0), weight.sizes());
  Tensor rows = native::reshape(input, rows_shape(input));
  Tensor weight_t = native::transpose(weight, 0, 1);
  // A 2-D input's bias is the GEMM's initial value; others add it after, as matmul + bias did
  // (bitwise the results they had).
  Tensor out = bias.defined() && input.dim() == 2 ? native::addmm(bias, rows, weight_t) : native::mm(rows, weight_t);
  if (bias.defined() && input.dim() != 2) out = native::binary(BinaryOp::Add, out, bias, OpParams{1.0});
  Shape out_shape = input.sizes();
  out_shape.back() = weight.size(0);
  if (input.dim() != 2) out = native::view(out, out_shape);
  // The edges in addmm's order (bias, input, weight): the parameters' gradients become ready
  // in the order they did, the bias's first (DistributedDataParallel's rebuilt buckets follow it).
  // The weight is saved as the view weight.t(), as addmm saved it, not as the parameter itself,
  // which fully_shard swaps for its shard after forward (a view keeps the gathered weight).
  return autograd::record("LinearBackward", out, {bias, input, weight},
                          {save_if(weight.requires_grad(), input), save_if(input.requires_grad(), weight.t())},
                          [input_shape = input.sizes()](const BackwardArgs& a) -> TensorList {
                            const Tensor &input = a.saved[0], &weight_t = a.saved[1];
                            Tensor grad = a.grad().reshape(rows_shape(a.grad()));  // [rows, out_features]
                            return {a.needs_grad[0] ? grad.sum({0}) : Tensor(),
                                    a.needs_grad[1] ? mm(grad, weight_t.t()).reshape(input_shape) : Tensor(),
                                    a.needs_grad[2] ? mm(grad.t(), input.reshape(rows_shape(input))) : Tensor()};
                          });
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) { return input.flatten(start_dim, end_dim); }

}  // namespace brisk::nn::functional
