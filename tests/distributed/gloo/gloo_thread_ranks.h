#pragma once
// Test helpers for ProcessGroupGloo with its ranks as threads of one process, sharing one
// TCPStore on 127.0.0.1.
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "distributed/gloo/process_group_gloo.h"
#include "tensor/native/ops.h"
#include "tests/thread_checks.h"

namespace brisk::testing {

// Runs body(rank, store) on `size` threads, each with its own client of one TCPStore on
// 127.0.0.1 (seen through a PrefixStore), through testing::run_threads: bodies check with
// THREAD_CHECK & co. (tests/thread_checks.h), which the calling thread reports after the
// join, and the first exception that escaped a body is rethrown.
void run_store_ranks(int size, const std::function<void(int rank, std::shared_ptr<dist::Store> store)>& body);

// Runs body(group) on `size` threads, one ProcessGroupGloo each (made with `options`), as
// run_store_ranks does.
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
