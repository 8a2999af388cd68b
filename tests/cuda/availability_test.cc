// What Brisk says when a CUDA device cannot be used. Runs in every build and on every machine:
// the expected answer depends on the build (BRISK_WITH_CUDA) and on what the machine has.
#include <catch2/catch.hpp>

#include "cuda/device.h"
#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

TEST_CASE("is_available, device_count and unavailable_reason agree") {
  CHECK(cuda::is_available() == (cuda::device_count() > 0));
  CHECK(cuda::unavailable_reason().empty() == cuda::is_available());
}

#ifndef BRISK_WITH_CUDA

TEST_CASE("a build without CUDA says so, and refuses CUDA tensors") {
  CHECK_FALSE(cuda::is_available());
  CHECK(cuda::device_count() == 0);
  CHECK(cuda::build_info() == "built without CUDA");
  CHECK(cuda::unavailable_reason() == "built without CUDA");
  CHECK_THROWS_WITH(cuda::set_device(0), Contains("built without CUDA"));
  CHECK_THROWS_WITH(native::empty({2, 3}, cuda_device(0)), Contains("no CUDA support"));
}

#else

TEST_CASE("build_info names the libraries and the compiled GPU architectures") {
  std::string info = cuda::build_info();
  CHECK_THAT(info, Contains("CUDA runtime: "));
  CHECK_THAT(info, Contains("cuBLAS: "));
  CHECK_THAT(info, Contains("cuDNN: "));
  CHECK_THAT(info, Contains("NCCL: "));
  CHECK_THAT(info, Contains("GPU code: sm_80,sm_90,compute_90"));
}

TEST_CASE("an unusable CUDA device raises an error that says why, never a CPU fallback") {
  // Without a GPU the reason is the driver or the missing GPU; with one, an index past the
  // last device is the unusable one.
  int device = cuda::is_available() ? cuda::device_count() : 0;
  std::string why = cuda::is_available() ? "CUDA device" : cuda::unavailable_reason();
  if (!cuda::is_available()) {
    bool known = why.find("no CUDA driver found / driver too old") == 0 || why.find("no CUDA GPU present") == 0;
    INFO(why);
    CHECK(known);
  }
  CHECK_THROWS_WITH(native::empty({2, 3}, cuda_device(device)), Contains(why));
  CHECK_THROWS_WITH(native::zeros({4}, cuda_device(device)), Contains(why));
  CHECK_THROWS_WITH(cuda::set_device(device), Contains(why));
  CHECK_THROWS_WITH(cuda::DeviceGuard(device), Contains(why));
  CHECK_THROWS_WITH(cuda::synchronize(device), Contains(why));
}

#endif
