// Reductions: output dtypes and empty-input rules as PyTorch, keepdim handling, and sum_to.
#include <algorithm>

#include "tensor/backend.h"
#include "tensor/native/operands.h"

namespace brisk::native {
namespace {

// The dtype an op reduces `x` in and writes, after PyTorch's dtype checks.
DType reduce_dtype(ReduceOp op, const Tensor& x) {
  const char* name = op_name(op);
  DType t = x.dtype();
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod: return is_integral(t, true) ? kInt64 : t;
    case ReduceOp::Mean:
    case ReduceOp::Var:
    case ReduceOp::Norm:
      BRISK_CHECK(is_floating_point(t), "{}: expected a floating point input, got {}; convert it with to() first", name,
                  x.describe());
      return t;
    case ReduceOp::LogSumExp: return is_floating_point(t) ? t : kFloat32;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      BRISK_CHECK(t != kBool, "{}: bool inputs are not supported (input {})", name, x.describe());
      return kInt64;
    case ReduceOp::Max:
    case ReduceOp::Min: return t;
  }
  return t;
}

// Max, min and their arg versions have no value for an empty reduction.
void check_nonempty(const char* name, const Tensor& x, const std::vector<int64_t>& dims, bool all_dims) {
  if (x.numel() != 0) return;
  BRISK_CHECK(!all_dims,
              "{}: cannot reduce the empty tensor {} over all its dims (the op has no identity); reduce over a dim "
              "of nonzero size instead",
              name, x.describe());
  for (int64_t d : dims) {
    BRISK_CHECK(x.sizes()[d] != 0, "{}: expected reduction dim {} to have non-zero size (input {})", name, d,
                x.describe());
  }
}

Shape keepdim_shape(const Shape& shape, const std::vector<int64_t>& dims) {
  Shape kept = shape;
  for (int64_t d : dims) kept[d] = 1;
  return kept;
}

// `shape` without the sorted `dims`.
Shape squeezed_shape(const Shape& shape, const std::vector<int64_t>& dims) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (!std::binary_search(dims.begin(), dims.end(), d)) out.push_back(shape[d]);
  }
  return out;
}

// A fresh output for reducing x over dims, and the keepdim-shaped view of it the kernel writes.
std::pair<Tensor, Tensor> new_output(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, DType dtype) {
  Shape kept = keepdim_shape(x.sizes(), dims);
  Tensor out = empty(keepdim ? kept : squeezed_shape(x.sizes(), dims), TensorOptions(dtype).device(x.device()));
  return {out, keepdim ? out : view(out, kept)};
}

std::pair<Tensor, Tensor> extremum_with_indices(ReduceOp op, const char* name, const Tensor& x, int64_t dim,
                                                bool keepdim) {
  std::vector<int64_t> dims = wrap_dims({dim}, x.dim(), name);
  check_nonempty(name, x, dims, false);
  auto [values, values_k] = new_output(x, dims, keepdim, x.dtype());
  auto [indices, indices_k] = new_output(x, dims, keepdim, kInt64);
  backend_for(x.device()).reduce(op, values_k, indices_k, x, dims, {});
  return {values, indices};
}

Tensor arg_extremum(ReduceOp op, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  const char* name = op_name(op);
  reduce_dtype(op, x);
  std::vector<int64_t> dims = wrap_dims(dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{}, x.dim(), name);
  check_nonempty(name, x, dims, !dim.has_value());
  auto [indices, indices_k] = new_output(x, dims, keepdim, kInt64);
  backend_for(x.device()).reduce(op, Tensor(), indices_k, x, dims, {});
  return indices;
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, OpParams p) {
  const char* name = op_name(op);
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) {
    BRISK_CHECK(dims.size() <= 1, "{}: reduces over one dim or all of them, got dims {}", name, dims);
    return arg_extremum(op, x, dims.empty() ? std::nullopt : std::optional<int64_t>(dims[0]), keepdim);
  }
  std::vector<int64_t> wrapped = wrap_dims(dims, x.dim(), name);
  DType dtype = reduce_dtype(op, x);
  if (op == ReduceOp::Max || op == ReduceOp::Min) check_nonempty(name, x, wrapped, dims.empty());
  auto [out, out_k] = new_output(x, wrapped, keepdim, dtype);
  Tensor in = op == ReduceOp::LogSumExp ? to(x, x.device(), dtype) : x;
  backend_for(x.device()).reduce(op, out_k, Tensor(), in, wrapped, p);
  return out;
}

std::pair<Tensor, Tensor> max_with_indices(const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_with_indices(ReduceOp::Max, "max", x, dim, keepdim);
}

std::pair<Tensor, Tensor> min_with_indices(const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_with_indices(ReduceOp::Min, "min", x, dim, keepdim);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(ReduceOp::ArgMax, x, dim, keepdim);
}

Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(ReduceOp::ArgMin, x, dim, keepdim);
}

Tensor sum_to(const Tensor& t, const Shape& shape) {
  if (t.sizes() == shape) return t;
  int64_t lead = t.dim() - static_cast<int64_t>(shape.size());
  BRISK_CHECK(lead >= 0, "sum_to: shape {} has more dims than the tensor {}", shape, t.describe());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t size = t.sizes()[lead + i];
    BRISK_CHECK(shape[i] == size || shape[i] == 1, "sum_to: shape {} is not broadcastable to the tensor {}", shape,
                t.describe());
    if (shape[i] == 1 && size != 1) dims.push_back(lead + static_cast<int64_t>(i));
  }
  return view(reduce(ReduceOp::Sum, t, dims, true), shape);
}

}  // namespace brisk::native
