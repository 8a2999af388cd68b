#pragma once
// The device a test target runs on. A CPU test target and its twins (brisk_cpu_gpu_test in
// tools/build/defs.bzl) compile the same sources; a twin adds a define and links its device's
// library, so its inputs live on that device while the expectations stay the same:
//   BRISK_TEST_DEVICE_SIM   sim:0, the simulated device (//tensor/sim), in every build
//   BRISK_TEST_DEVICE_CUDA  cuda:0 (//cuda), gpu-tagged, CUDA builds only
#include "tensor/tensor.h"

namespace brisk::test {

inline Device test_device() {
#if defined(BRISK_TEST_DEVICE_CUDA)
  return cuda_device(0);
#elif defined(BRISK_TEST_DEVICE_SIM)
  return sim_device(0);
#else
  return kCPU;
#endif
}

// `t` on the test device (`t` itself when it is already there).
inline Tensor on_test_device(const Tensor& t) { return t.to(test_device()); }

}  // namespace brisk::test
