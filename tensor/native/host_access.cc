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

#define BRISK_INSTANTIATE_HOST_ACCESS(name, T, printed, scalar_type) \
  template std::vector<T> Tensor::to_vector<T>() const;              \
  template T Tensor::item<T>() const;
BRISK_FORALL_DTYPES(BRISK_INSTANTIATE_HOST_ACCESS)
#undef BRISK_INSTANTIATE_HOST_ACCESS

}  // namespace brisk
