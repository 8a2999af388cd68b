#pragma once
// The device a test target runs on. A CPU test target and its gpu-tagged twin compile the same
// sources; the twin adds local_defines = ["BRISK_TEST_DEVICE_CUDA"] and links //cuda, so its
// inputs live on the first GPU while the expectations stay the same.
#include "tensor/tensor.h"

namespace brisk::test {

inline Device test_device() {
#ifdef BRISK_TEST_DEVICE_CUDA
  return cuda_device(0);
#else
  return kCPU;
#endif
}

// `t` on the test device (`t` itself when it is already there).
inline Tensor on_test_device(const Tensor& t) { return t.to(test_device()); }

}  // namespace brisk::test
