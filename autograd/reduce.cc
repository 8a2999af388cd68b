// Reductions. Gradients come back to the input's shape by reshaping to the keepdim form and
// broadcasting; max/min-like reductions send them to the elements that were picked.
#include <cmath>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// What a reduction's backward needs to know about its shapes.
struct Reduction {
  Shape input_shape;
  Shape keepdim_shape;        // the input's shape with the reduced dims set to 1
  std::vector<int64_t> dims;  // wrapped and sorted; all dims when none were given
  int64_t count = 1;          // elements reduced into each output element

  Reduction(const Tensor& x, IntArrayRef reduce_dims, const char* op)
      : input_shape(x.sizes()), keepdim_shape(x.sizes()), dims(wrap_dims(reduce_dims.vec(), x.dim(), op)) {
    for (int64_t d : dims) {
      count *= input_shape[d];
      keepdim_shape[d] = 1;
    }
  }

  // A result (or its gradient), with or without keepdim, in the keepdim form.
  Tensor kept(const Tensor& t) const { return t.reshape(keepdim_shape); }
  // The gradient broadcast back to the input's shape.
  Tensor expand(const Tensor& grad) const { return kept(grad).expand(input_shape); }
};

Tensor grad_where(const Tensor& grad, const Tensor& keep) { return masked_fill(grad, logical_not(keep), 0.0); }

// The gradient of amax/amin-like reductions: split evenly among the elements equal to the result.
Tensor evenly_split(const Reduction& r, const Tensor& grad, const Tensor& x, const Tensor& out) {
  Tensor hit = eq(x, r.kept(out));
  return grad_where(r.expand(grad), hit) / sum(hit, r.dims, true);
}

Tensor reduce_op(ReduceOp op, const Tensor& x, const Reduction& r, bool keepdim, double param = 0.0) {
  return native::reduce(op, x, r.dims, keepdim, OpParams{param});
}

}  // namespace

Tensor sum(const Tensor& x_in, IntArrayRef dims, bool keepdim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::sum, x_in);
  const Tensor& x = autocast_inputs[0];
  Reduction r(x, dims, "sum");
  return record("SumBackward", reduce_op(ReduceOp::Sum, x, r, keepdim), {x}, {},
                [r](const BackwardArgs& g) -> TensorList { return {r.expand(g.grad())}; });
}

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Reduction r(x, dims, "mean");
  return record(
      "MeanBackward", reduce_op(ReduceOp::Mean, x, r, keepdim), {x}, {},
      [r](const BackwardArgs& g) -> TensorList { return {r.expand(g.grad()) / static_cast<double>(r.count)}; });
}

Tensor prod(const Tensor& x_in, IntArrayRef dims, bool keepdim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::prod, x_in);
  const Tensor& x = autocast_inputs[0];
  Reduction r(x, dims, "prod");
  return record("ProdBackward", reduce_op(ReduceOp::Prod, x, r, keepdim), {x}, {x},
                [r](const BackwardArgs& g) -> TensorList {
                  // d prod / d x_i is the product of the others. Dividing by x_i fails on zeros, so
                  // use the product of the nonzero elements: it is the answer for a lone zero,
                  // divided by x_i when there is no zero, and the gradient is 0 with two or more.
                  const Tensor& x = g.saved[0];
                  Tensor zero = x.eq(0.0);
                  Tensor x_safe = masked_fill(x, zero, 1.0);
                  Tensor zeros_in_slice = sum(zero, r.dims, true);
                  Tensor usable = logical_or(zeros_in_slice.eq(0), logical_and(zeros_in_slice.eq(1), zero));
                  return {grad_where(r.expand(g.grad()) * prod(x_safe, r.dims, true) / x_safe, usable)};
                });
}

Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Reduction r(x, dims, "amax");
  Tensor out = reduce_op(ReduceOp::Max, x, r, keepdim);
  return record("AmaxBackward", out, {x}, {x, out}, [r](const BackwardArgs& g) -> TensorList {
    return {evenly_split(r, g.grad(), g.saved[0], g.saved[1])};
  });
}

Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Reduction r(x, dims, "amin");
  Tensor out = reduce_op(ReduceOp::Min, x, r, keepdim);
  return record("AminBackward", out, {x}, {x, out}, [r](const BackwardArgs& g) -> TensorList {
    return {evenly_split(r, g.grad(), g.saved[0], g.saved[1])};
  });
}

// The full max/min split the gradient among ties, as amax/amin do (and PyTorch).
Tensor Tensor::max() const { return brisk::amax(*this); }
Tensor Tensor::min() const { return brisk::amin(*this); }

namespace {

// max or min along `dim`: the gradient goes to the element whose index was returned.
std::pair<Tensor, Tensor> record_indexed(const char* name, std::pair<Tensor, Tensor> result, const Tensor& x,
                                         int64_t dim, bool keepdim) {
  auto& [values, indices] = result;
  int64_t d = wrap_dim(dim, x.dim(), name);
  values = record(name, values, {x}, {indices}, [d, keepdim, shape = x.sizes()](const BackwardArgs& g) -> TensorList {
    Tensor index = keepdim ? g.saved[0] : g.saved[0].unsqueeze(d);
    Tensor grad = keepdim ? g.grad() : g.grad().unsqueeze(d);
    return {scatter_add(zeros(shape, grad.options()), d, index, grad)};
  });
  return result;
}

}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return record_indexed("MaxBackward", native::max_with_indices(x, dim, keepdim), x, dim, keepdim);
}

std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return record_indexed("MinBackward", native::min_with_indices(x, dim, keepdim), x, dim, keepdim);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return native::argmax(x, dim, keepdim); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return native::argmin(x, dim, keepdim); }

Tensor var(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  Reduction r(x, dims, "var");
  Tensor out = reduce_op(ReduceOp::Var, x, r, keepdim, static_cast<double>(correction));
  return record("VarBackward", out, {x}, {x}, [r, correction](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    double scale = 2.0 / static_cast<double>(r.count - correction);
    return {r.expand(g.grad()) * (x - mean(x, r.dims, true)) * scale};
  });
}

Tensor std(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim) {
  Reduction r(x, dims, "std");
  Tensor out = native::unary(UnaryOp::Sqrt, reduce_op(ReduceOp::Var, x, r, keepdim, static_cast<double>(correction)));
  return record("StdBackward", out, {x}, {x, out}, [r, correction](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    Tensor std_kept = r.kept(g.saved[1]);
    double scale = 1.0 / static_cast<double>(r.count - correction);
    // Where the deviation is 0 the gradient is taken as 0 (not 0/0), as PyTorch.
    Tensor grad = r.expand(g.grad()) * (x - mean(x, r.dims, true)) / std_kept * scale;
    return {masked_fill(grad, std_kept.eq(0.0), 0.0)};
  });
}

Tensor logsumexp(const Tensor& x_in, IntArrayRef dims, bool keepdim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::logsumexp, x_in);
  const Tensor& x = autocast_inputs[0];
  Reduction r(x, dims, "logsumexp");
  Tensor out = reduce_op(ReduceOp::LogSumExp, x, r, keepdim);
  return record("LogsumexpBackward", out, {x}, {x, out}, [r](const BackwardArgs& g) -> TensorList {
    return {r.expand(g.grad()) * exp(g.saved[0] - r.kept(g.saved[1]))};
  });
}

Tensor norm(const Tensor& x_in, double p, IntArrayRef dims, bool keepdim) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::norm, x_in);
  const Tensor& x = autocast_inputs[0];
  Reduction r(x, dims, "norm");
  Tensor out = reduce_op(ReduceOp::Norm, x, r, keepdim, p);
  return record("NormBackward", out, {x}, {x, out}, [r, p](const BackwardArgs& g) -> TensorList {
    const Tensor& x = g.saved[0];
    Tensor norm_kept = r.kept(g.saved[1]);
    Tensor grad = r.expand(g.grad());
    if (p == 0.0) return {zeros_like(x)};
    if (p == 1.0) return {grad * sign(x)};
    if (std::isinf(p)) return {evenly_split(r, g.grad(), abs(x), g.saved[1]) * sign(x)};
    // d ||x||_p / dx = sign(x) |x|^(p-1) / ||x||_p^(p-1); taken as 0 where that is 0/0 or
    // (for p < 1) where x is 0.
    Tensor scaled = p == 2.0 ? x / norm_kept : sign(x) * pow(abs(x), p - 1.0) / pow(norm_kept, p - 1.0);
    Tensor undefined_at = p < 1.0 ? logical_or(norm_kept.eq(0.0), x.eq(0.0)) : norm_kept.eq(0.0);
    return {masked_fill(grad * scaled, undefined_at, 0.0)};
  });
}

}  // namespace brisk
