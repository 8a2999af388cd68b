// Factories: new tensors from a shape and a fill rule, or from host data. Values are produced
// on the host or by the target device's fill kernel; host data reaches another device
// through native::to.
#include <cmath>

#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

// Converts a host tensor built in a convenient dtype to the dtype and device asked for.
Tensor to_options(const Tensor& host, const TensorOptions& options) {
  if (host.dtype() == options.dtype() && options.device().is_cpu()) return host;
  return to(host, options.device(), options.dtype());
}

}  // namespace

Tensor empty(const Shape& shape, TensorOptions options) {
  const MemoryFormat format = options.memory_format_opt().value_or(MemoryFormat::Contiguous);
  BRISK_CHECK(format != MemoryFormat::Preserve,
              "empty: torch.preserve_format needs a tensor to preserve; use empty_like");
  return empty_strided(shape, strides_in_format(shape, format, "empty"), options);
}

Tensor empty_strided(const Shape& shape, const Shape& strides, TensorOptions options) {
  for (int64_t s : shape) BRISK_CHECK(s >= 0, "empty: negative size in shape {}", shape);
  BRISK_CHECK(strides.size() == shape.size(), "empty_strided: {} strides {} for the {}-D shape {}", strides.size(),
              strides, shape.size(), shape);
  int64_t extent = shape_numel(shape) == 0 ? 0 : 1;
  for (size_t d = 0; d < shape.size() && extent > 0; ++d) {
    BRISK_CHECK(strides[d] >= 0, "empty_strided: negative stride in strides {}", strides);
    extent += (shape[d] - 1) * strides[d];
  }
  size_t nbytes = static_cast<size_t>(extent) * element_size(options.dtype());
  auto storage = std::make_shared<Storage>(nbytes, options.device());
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), shape, strides, 0, options.dtype()));
  return finish(t, options);
}

Tensor empty_pinned(const Shape& shape, DType dtype, Device copies_to) {
  Allocator* pinned = pinned_allocator_for(copies_to.type);
  if (pinned == nullptr) return empty(shape, TensorOptions(dtype));
  for (int64_t s : shape) BRISK_CHECK(s >= 0, "empty_pinned: negative size in shape {}", shape);
  size_t nbytes = static_cast<size_t>(shape_numel(shape)) * element_size(dtype);
  auto storage = std::make_shared<Storage>(pinned->allocate(nbytes, copies_to), nbytes, kCPU);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), shape, contiguous_strides(shape), 0, dtype));
}

Tensor empty_like(const Tensor& t, MemoryFormat format) { return empty_like(t, t.options(), format); }

Tensor empty_like(const Tensor& t, TensorOptions options, MemoryFormat format) {
  if (format != MemoryFormat::Preserve) return empty(t.sizes(), options.memory_format(format));
  if (is_non_overlapping_and_dense(t.sizes(), t.strides())) return empty_strided(t.sizes(), t.strides(), options);
  return empty(t.sizes(), options.memory_format(t.suggest_memory_format()));
}

Tensor full(const Shape& shape, Scalar value, TensorOptions options) {
  Tensor t = empty(shape, options.requires_grad(false));
  fill_(t, value);
  return finish(t, options);
}

Tensor zeros(const Shape& shape, TensorOptions options) { return full(shape, 0, options); }

Tensor ones(const Shape& shape, TensorOptions options) { return full(shape, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  // As in PyTorch, the length always comes from the float64 bounds, while integer dtypes
  // compute the values from the truncated start and step: arange(0, 5, 1.5) as int64 is
  // [0, 1, 2, 3].
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  BRISK_CHECK(std::isfinite(s) && std::isfinite(e), "arange: bounds must be finite, got start={} end={}", s, e);
  BRISK_CHECK(st != 0, "arange: step must be nonzero");
  BRISK_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound {} and lower bound {} are inconsistent with step sign ({})", e, s, st);
  auto length = static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor host;
  if (is_integral(options.dtype(), true)) {
    host = empty({length}, kInt64);
    int64_t* p = host.data_ptr<int64_t>();
    int64_t a = start.to_int(), b = step.to_int();
    for (int64_t i = 0; i < length; ++i) p[i] = a + i * b;
  } else {
    host = empty({length}, kFloat64);
    double* p = host.data_ptr<double>();
    for (int64_t i = 0; i < length; ++i) p[i] = s + static_cast<double>(i) * st;
  }
  return finish(to_options(host, options), options);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options) {
  BRISK_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got {}", steps);
  // PyTorch's kernel: the first half counts up from start and the second half down from end,
  // each value one fused multiply-add, in float32 for float32 and in float64 for the others;
  // integer dtypes truncate start and end first. (PyTorch computes bfloat16 and float16 in
  // their own type, rounding after each step; Brisk in float32, rounding once.)
  auto compute = [&](auto zero) {
    using T = decltype(zero);
    const bool integral = is_integral(options.dtype(), true);
    T s = integral ? static_cast<T>(start.to_int()) : static_cast<T>(start.to_double());
    T e = integral ? static_cast<T>(end.to_int()) : static_cast<T>(end.to_double());
    Tensor host = empty({steps}, dtype_of<T>::value);
    T* p = host.data_ptr<T>();
    const T step = steps > 1 ? (e - s) / static_cast<T>(steps - 1) : T(0);
    const int64_t halfway = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      p[i] = i < halfway ? std::fma(step, static_cast<T>(i), s) : std::fma(-step, static_cast<T>(steps - i - 1), e);
    }
    if (steps == 1) p[0] = s;
    return host;
  };
  bool in_float32 = options.dtype() == kFloat32 || is_reduced_float(options.dtype());
  Tensor host = in_float32 ? compute(0.0f) : compute(0.0);
  return finish(to_options(host, options), options);
}

Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, std::function<void(void*)> deleter,
                 TensorOptions options) {
  BRISK_CHECK(sizes.size() == strides.size(), "from_blob: {} sizes but {} strides (sizes {}, strides {})",
              sizes.size(), strides.size(), sizes, strides);
  // The elements the sizes and strides reach: the last one's offset + 1, none when a size is 0.
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    BRISK_CHECK(sizes[d] >= 0, "from_blob: negative size in sizes {}", sizes);
    BRISK_CHECK(strides[d] >= 0, "from_blob: negative stride in strides {}", strides);
    extent += (sizes[d] - 1) * strides[d];
  }
  if (shape_numel(sizes) == 0) extent = 0;
  BRISK_CHECK(data != nullptr || extent == 0, "from_blob: data is null for sizes {}", sizes);
  if (!deleter) deleter = [](void*) {};
  size_t nbytes = static_cast<size_t>(extent) * element_size(options.dtype());
  auto storage = std::make_shared<Storage>(DataPtr(data, std::move(deleter)), nbytes, options.device());
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, options.dtype()));
  return finish(t, options);
}

Tensor scalar_tensor(Scalar value, DType dtype, Device device) {
  return full({}, value, TensorOptions(dtype).device(device));
}

template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions options) {
  BRISK_CHECK(static_cast<int64_t>(values.size()) == shape_numel(shape),
              "from_vector: {} values cannot fill a tensor of shape {} ({} elements)", values.size(), shape,
              shape_numel(shape));
  Tensor host = empty(shape, dtype_of<T>::value);
  T* p = host.data_ptr<T>();
  // Element by element because std::vector<bool> has no contiguous data().
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return finish(to_options(host, options), options);
}

#define BRISK_INSTANTIATE_FROM_VECTOR(name, T, printed, scalar_type) \
  template Tensor from_vector<T>(const std::vector<T>&, const Shape&, TensorOptions);
BRISK_FORALL_DTYPES(BRISK_INSTANTIATE_FROM_VECTOR)
#undef BRISK_INSTANTIATE_FROM_VECTOR

}  // namespace brisk::native
