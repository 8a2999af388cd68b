#pragma once
// The differentiable ops of Brisk as free functions (the Tensor methods call these).
// Each computes its result with the native op and, when grad mode is on and an input
// requires grad, records a node whose backward is defined next to the op's forward.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/row_op.h"
#include "tensor/generator.h"
#include "tensor/indexing.h"
#include "tensor/int_array_ref.h"
#include "tensor/op_table.h"
#include "tensor/tensor.h"

namespace brisk {

// ---- Factories (never record history; requires_grad from the options) ----
Tensor empty(const Shape& shape, TensorOptions options = {});
Tensor zeros(const Shape& shape, TensorOptions options = {});
Tensor ones(const Shape& shape, TensorOptions options = {});
Tensor full(const Shape& shape, Scalar value, TensorOptions options = {});
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, Scalar value);
// The n x m identity (ones on the diagonal); m defaults to n.
Tensor eye(int64_t n, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m, TensorOptions options = {});
// Preserve (the default): t's strides when t is dense, as PyTorch; or a given memory format.
Tensor empty_like(const Tensor& t, MemoryFormat memory_format = MemoryFormat::Preserve);
// [0, end) and [start, end) by step; int64 when all are integers, else float32, as PyTorch.
Tensor arange(Scalar end, TensorOptions options);
Tensor arange(Scalar end);
Tensor arange(Scalar start, Scalar end, Scalar step = 1);
Tensor arange(Scalar start, Scalar end, TensorOptions options);
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options);
// `steps` values from start to end, both included, as PyTorch computes them (docs/tensors.md).
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options = {});
// A tensor over memory the caller owns, without a copy (libtorch's from_blob): `data` holds
// the elements that sizes and strides (contiguous when none are given) reach, of the options'
// dtype on the options' device. Without a deleter the memory must outlive the tensor and its
// views; with one, it is called with `data` when the last of them is destroyed.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
Tensor rand(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);
Tensor randn(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor randperm(int64_t n, Generator* gen = nullptr, TensorOptions options = kInt64);
// Integers uniform in [low, high), as values of the options' dtype (int64 by default).
Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options = kInt64, Generator* gen = nullptr);
Tensor randint(int64_t high, const Shape& shape, TensorOptions options = kInt64, Generator* gen = nullptr);
// tensor({1.5, 2.5}), tensor({{1, 2}, {3, 4}}), tensor({1, 2, 3, 4}, {2, 2}), tensor(values):
// the dtype is inferred as libtorch's torch::tensor infers it (floating values, float or double,
// make float32, integers int64, bools bool) unless the options name one:
// tensor({0.1, 0.2}, kFloat64).
template <typename T>
Tensor tensor(const std::vector<T>& values, const Shape& shape, std::optional<TensorOptions> options = std::nullopt);
template <typename T>
Tensor tensor(const std::vector<T>& values, std::optional<TensorOptions> options = std::nullopt) {
  return tensor(values, {static_cast<int64_t>(values.size())}, options);
}
template <typename T>
Tensor tensor(std::initializer_list<T> values, const Shape& shape, std::optional<TensorOptions> options = std::nullopt) {
  return tensor(std::vector<T>(values), shape, options);
}
template <typename T>
Tensor tensor(std::initializer_list<T> values, std::optional<TensorOptions> options = std::nullopt) {
  return tensor(std::vector<T>(values), options);
}
// Rows of equal length: a 2-D tensor.
template <typename T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows, std::optional<TensorOptions> options = std::nullopt) {
  std::vector<T> values;
  for (const auto& row : rows) {
    BRISK_CHECK(row.size() == rows.begin()->size(), "tensor: rows of {} and {} elements; every row needs the same length",
                rows.begin()->size(), row.size());
    values.insert(values.end(), row.begin(), row.end());
  }
  int64_t columns = rows.size() == 0 ? 0 : static_cast<int64_t>(rows.begin()->size());
  return tensor(values, {static_cast<int64_t>(rows.size()), columns}, options);
}
Tensor scalar_tensor(Scalar value, TensorOptions options = {});

// ---- Elementwise ----
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
// relu(a + b) as one kernel forward and one backward (the ReLU's mask from the saved
// output), for a residual sum or a bias followed by a ReLU; float dtypes.
Tensor add_relu(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, Scalar exponent);
Tensor pow(Scalar base, const Tensor& exponent);
Tensor neg(const Tensor& x);
// The remainder of a / b with the sign of b, as Python's % (torch.remainder), and with the
// sign of a, as C's fmod (torch.fmod); the quotient's gradient floor(a / b) or trunc(a / b)
// flows to b. An integer divisor of zero raises, as PyTorch on the CPU.
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor remainder(Scalar a, const Tensor& b);
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, Scalar b);
// abs(x), exp(x), log(x), ...: the math rows of tensor/op_table.h.
#define BRISK_UNARY_MATH_FUNCTION(Op, name, ...) Tensor name(const Tensor& x);
BRISK_UNARY_MATH_OPS(BRISK_UNARY_MATH_FUNCTION)
#undef BRISK_UNARY_MATH_FUNCTION
// relu(x), ..., hardswish(x) and leaky_relu(x, negative_slope = 0.01), elu(x, alpha = 1.0),
// softplus(x, beta = 1.0, threshold = 20.0): the activation rows of tensor/op_table.h.
#define BRISK_ACTIVATION_FUNCTION(Op, name, ...) \
  inline Tensor name(const Tensor& x) { return autograd::run_activation(UnaryOp::Op, x); }
BRISK_ACTIVATION_OPS(BRISK_ACTIVATION_FUNCTION)
#undef BRISK_ACTIVATION_FUNCTION
#define BRISK_ACTIVATION_FUNCTION(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, Saved, numbers, params) \
  inline Tensor name(const Tensor& x, BRISK_ROW_UNPAREN numbers) {                                               \
    return autograd::run_activation(UnaryOp::Op, x, {BRISK_ROW_UNPAREN params});                              \
  }
BRISK_ACTIVATION_OPS_WITH_NUMBERS(BRISK_ACTIVATION_FUNCTION)
#undef BRISK_ACTIVATION_FUNCTION
// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value);
// The elements of x where the bool mask is true (the two broadcast together), as a 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
Tensor addcmul(const Tensor& x, const Tensor& a, const Tensor& b, Scalar value = 1);
Tensor addcdiv(const Tensor& x, const Tensor& a, const Tensor& b, Scalar value = 1);
// start + weight * (end - start); start and end share one floating point dtype.
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight);
// Comparisons and logical ops return bool tensors and are not differentiable: eq(a, b), ...,
// logical_or(a, b), the comparison rows of tensor/op_table.h, and logical_not(x).
#define BRISK_COMPARISON_FUNCTION(Op, name, ...) Tensor name(const Tensor& a, const Tensor& b);
BRISK_COMPARISON_OPS(BRISK_COMPARISON_FUNCTION)
#undef BRISK_COMPARISON_FUNCTION
Tensor logical_not(const Tensor& x);

// ---- Reductions; dims: one dim, a braced list or a vector (IntArrayRef); none or {} = all dims ----
Tensor sum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor prod(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
Tensor norm(const Tensor& x, double p = 2.0, IntArrayRef dims = {}, bool keepdim = false);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);

// ---- Linear algebra ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
// beta * bias + alpha * (a @ b)
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta = 1, Scalar alpha = 1);

// ---- Joining, splitting, indexing ----
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// int64 indices -> int64 one-hot with a trailing dim of num_classes (max + 1 when -1).
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);

// ---- Comparison of whole tensors ----
bool equal(const Tensor& a, const Tensor& b);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace brisk
