#pragma once
// The data of an optional operand: kernels take undefined tensors (no bias, no gradient
// wanted) as null pointers.
#include "tensor/tensor.h"

namespace brisk::cpu {

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace brisk::cpu
