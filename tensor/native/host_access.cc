// The Tensor accessors that move data to the host: item() and to_vector().
#include "tensor/native/ops.h"

namespace brisk {

template <typename T>
std::vector<T> Tensor::to_vector() const {
  Tensor host = native::contiguous(native::to(*this, kCPU, dtype_of<T>::value));
  const T* p = host.data_ptr<T>();
  return std::vector<T>(p, p + host.numel());
}

template <typename T>
T Tensor::item() const {
  BRISK_CHECK(numel() == 1, "item: only a one-element tensor converts to a number, got {}", describe());
  return to_vector<T>()[0];
}

#define BRISK_INSTANTIATE_HOST_ACCESS(T)                \
  template std::vector<T> Tensor::to_vector<T>() const; \
  template T Tensor::item<T>() const;
BRISK_INSTANTIATE_HOST_ACCESS(float)
BRISK_INSTANTIATE_HOST_ACCESS(double)
BRISK_INSTANTIATE_HOST_ACCESS(int64_t)
BRISK_INSTANTIATE_HOST_ACCESS(int32_t)
BRISK_INSTANTIATE_HOST_ACCESS(uint8_t)
BRISK_INSTANTIATE_HOST_ACCESS(bool)
#undef BRISK_INSTANTIATE_HOST_ACCESS

}  // namespace brisk
