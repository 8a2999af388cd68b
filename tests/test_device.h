#pragma once
// The device a test target runs on. A CPU test target and its twins (brisk_cpu_gpu_test in
// tools/build/defs.bzl) compile the same sources; a twin adds a define and links its device's
// library, so its inputs live on that device while the expectations stay the same:
//   BRISK_TEST_DEVICE_SIM   sim:0, the simulated device (//tensor/sim), in every build
//   BRISK_TEST_DEVICE_CUDA  cuda:0 (//cuda), gpu-tagged, CUDA builds only
#include <cstdint>

#include "autograd/ops.h"
#include "tensor/error.h"
#include "tensor/generator.h"
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

// Float64 leaves on the test device, drawn on the CPU from a generator of a fixed seed, so
// that a test and its twins draw the same values:
//   LeafMaker leaf(13);
//   Tensor x = leaf({4, 3}, 2.0, 1.0);  // randn * 2 + 1, requires grad
class LeafMaker {
 public:
  explicit LeafMaker(uint64_t seed) : generator_(seed) {}
  Tensor operator()(const Shape& shape, double scale = 1.0, double offset = 0.0) {
    return on_test_device(randn(shape, kFloat64, &generator_) * scale + offset).detach().requires_grad_();
  }
  // For the test's other draws, from the same stream.
  Generator& generator() { return generator_; }

 private:
  Generator generator_;
};

// The largest absolute difference of two tensors of one shape, on any devices (0 when empty).
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  BRISK_CHECK(a.sizes() == b.sizes(), "max_abs_diff: shapes {} and {} differ", a.sizes(), b.sizes());
  if (a.numel() == 0) return 0;
  return (a.detach().to(kCPU) - b.detach().to(kCPU)).abs().max().item<double>();
}

}  // namespace brisk::test
