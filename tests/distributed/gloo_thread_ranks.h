#pragma once
// Test helpers for ProcessGroupGloo with its ranks as threads of one process, sharing one
// TCPStore on 127.0.0.1.
#include <cstring>
#include <functional>
#include <vector>

#include "distributed/process_group_gloo.h"
#include "tensor/native/ops.h"

namespace brisk::testing {

// Runs body(group) on `size` threads, one ProcessGroupGloo each (made with `options`), and
// rethrows the first failure.
void run_gloo_ranks(int size, const std::function<void(dist::ProcessGroupGloo&)>& body,
                    dist::ProcessGroupOptions options = {});

// A 1-D CPU tensor holding `values`.
template <typename T>
Tensor make(const std::vector<T>& values) {
  Tensor t = native::empty({static_cast<int64_t>(values.size())}, TensorOptions(dtype_of<T>::value));
  std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  return t;
}

}  // namespace brisk::testing
