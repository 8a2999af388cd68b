#pragma once
// TensorAccessor: element access to a CPU tensor of known dtype and dim count, as libtorch's.
//
//   auto a = x.accessor<float, 2>();   // x: float32, 2 dims, on the CPU
//   for (int64_t i = 0; i < a.size(0); ++i)
//     for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
//
// It follows the tensor's strides (any view works) and points into the tensor's memory and
// shape: the tensor must outlive it. Writes through it are not seen by autograd.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensor/int_array_ref.h"
#include "tensor/tensor.h"

namespace brisk {

template <typename T, size_t N>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  int64_t size(size_t i) const { return sizes_[i]; }
  int64_t stride(size_t i) const { return strides_[i]; }
  T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

// a[i] is the accessor of the sub-tensor at index i of the first dim.
template <typename T, size_t N>
class TensorAccessor : public TensorAccessorBase<T, N> {
 public:
  using TensorAccessorBase<T, N>::TensorAccessorBase;
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

// a[i] is the element at index i.
template <typename T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T, 1> {
 public:
  using TensorAccessorBase<T, 1>::TensorAccessorBase;
  T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

template <typename T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  static_assert(N > 0, "accessor is for indexing a tensor; for a 0-dim one use item<T>() or *data_ptr<T>()");
  BRISK_CHECK(is_cpu(), "accessor<{}, {}>: the tensor is on {}; accessors read host memory, call .cpu() first ({})",
              dtype_name(dtype_of<std::remove_const_t<T>>::value), N, device(), describe());
  BRISK_CHECK(dim() == static_cast<int64_t>(N), "accessor<{}, {}>: expected {} dims but the tensor has {} ({})",
              dtype_name(dtype_of<std::remove_const_t<T>>::value), N, N, dim(), describe());
  return TensorAccessor<T, N>(data_ptr<std::remove_const_t<T>>(), sizes().data(), strides().data());
}

}  // namespace brisk
