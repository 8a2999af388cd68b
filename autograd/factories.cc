// Factories: the native ones plus requires_grad from the options. They never record history.
#include <type_traits>

#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk {

namespace {

Tensor with_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// arange's dtype when none is given: int64 when all bounds are integers, else float32.
DType arange_dtype(Scalar start, Scalar end, Scalar step) {
  bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return floating ? kFloat32 : kInt64;
}

}  // namespace

Tensor empty(const Shape& shape, TensorOptions options) { return with_grad(native::empty(shape, options), options); }
Tensor zeros(const Shape& shape, TensorOptions options) { return with_grad(native::zeros(shape, options), options); }
Tensor ones(const Shape& shape, TensorOptions options) { return with_grad(native::ones(shape, options), options); }
Tensor full(const Shape& shape, Scalar value, TensorOptions options) {
  return with_grad(native::full(shape, value, options), options);
}

// In t's layout (Preserve), as PyTorch's *_like factories.
Tensor full_like(const Tensor& t, Scalar value) {
  Tensor out = native::empty_like(t);
  return native::fill_(out, value);
}
Tensor zeros_like(const Tensor& t) { return full_like(t, 0); }
Tensor ones_like(const Tensor& t) { return full_like(t, 1); }
Tensor eye(int64_t n, TensorOptions options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, TensorOptions options) {
  BRISK_CHECK(n >= 0 && m >= 0, "eye: n = {} and m = {} must not be negative", n, m);
  TensorOptions indices = TensorOptions(kInt64).device(options.device());
  Tensor rows = arange(n, indices).view({n, 1});
  Tensor columns = arange(m, indices).view({1, m});
  return with_grad(eq(rows, columns).to(options.dtype()), options);
}
Tensor empty_like(const Tensor& t, MemoryFormat memory_format) { return native::empty_like(t, memory_format); }

Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }
Tensor arange(Scalar end) { return arange(0, end, 1); }
Tensor arange(Scalar start, Scalar end, Scalar step) {
  return native::arange(start, end, step, arange_dtype(start, end, step));
}
Tensor arange(Scalar start, Scalar end, TensorOptions options) { return arange(start, end, 1, options); }
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  return with_grad(native::arange(start, end, step, options), options);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options) {
  return native::linspace(start, end, steps, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes.vec()), {}, options);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return from_blob(data, sizes, strides, {}, options);
}
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes.vec()), deleter, options);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  return native::from_blob(data, sizes.vec(), strides.vec(), deleter, options);
}

Tensor rand(const Shape& shape, TensorOptions options, Generator* gen) {
  Tensor t = native::empty(shape, options);
  native::uniform_(t, 0.0, 1.0, gen);
  return with_grad(t, options);
}

Tensor randn(const Shape& shape, TensorOptions options, Generator* gen) {
  Tensor t = native::empty(shape, options);
  native::normal_(t, 0.0, 1.0, gen);
  return with_grad(t, options);
}

Tensor bernoulli(const Tensor& p, Generator* gen) { return native::bernoulli(p, gen); }
Tensor randperm(int64_t n, Generator* gen, TensorOptions options) {
  return with_grad(native::randperm(n, gen, options), options);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, TensorOptions options, Generator* gen) {
  return with_grad(native::randint(low, high, shape, options, gen), options);
}
Tensor randint(int64_t high, const Shape& shape, TensorOptions options, Generator* gen) {
  return randint(0, high, shape, options, gen);
}

template <typename T>
Tensor tensor(const std::vector<T>& values, const Shape& shape, std::optional<TensorOptions> options) {
  if constexpr (std::is_same_v<T, int>) {
    return tensor(std::vector<int64_t>(values.begin(), values.end()), shape, options);
  } else {
    // libtorch's inference: floating values take the default dtype (float32), as Python
    // floats do in PyTorch; integers int64, bools bool.
    constexpr DType inferred = std::is_floating_point_v<T> ? kFloat32 : dtype_of<T>::value;
    TensorOptions opts = options.value_or(TensorOptions(inferred));
    return with_grad(native::from_vector<T>(values, shape, opts), opts);
  }
}

template Tensor tensor<float>(const std::vector<float>&, const Shape&, std::optional<TensorOptions>);
template Tensor tensor<double>(const std::vector<double>&, const Shape&, std::optional<TensorOptions>);
template Tensor tensor<int>(const std::vector<int>&, const Shape&, std::optional<TensorOptions>);
template Tensor tensor<int64_t>(const std::vector<int64_t>&, const Shape&, std::optional<TensorOptions>);
template Tensor tensor<bool>(const std::vector<bool>&, const Shape&, std::optional<TensorOptions>);

Tensor scalar_tensor(Scalar value, TensorOptions options) {
  return with_grad(native::full({}, value, options), options);
}

}  // namespace brisk
