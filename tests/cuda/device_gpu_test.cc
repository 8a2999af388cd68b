// cuda/device.h on a real GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cuda/device.h"

using namespace brisk;
using Catch::Matchers::Contains;

TEST_CASE("a GPU is available and visible") {
  REQUIRE(cuda::is_available());
  REQUIRE(cuda::device_count() >= 1);
  CHECK(cuda::unavailable_reason().empty());
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(cuda::device_count() == count);
}

TEST_CASE("build_info reports the driver and every device") {
  std::string info = cuda::build_info();
  CHECK_THAT(info, Contains("CUDA driver: supports CUDA "));
  CHECK_THAT(info, Contains("cuda:0: "));
  CHECK_THAT(info, Contains(" SMs"));
}

TEST_CASE("set_device and DeviceGuard change the current device and restore it") {
  int last = cuda::device_count() - 1;
  cuda::set_device(0);
  CHECK(cuda::current_device() == 0);
  {
    cuda::DeviceGuard guard(last);
    CHECK(cuda::current_device() == last);
    int device = -1;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    CHECK(device == last);
  }
  CHECK(cuda::current_device() == 0);
}

TEST_CASE("a device index past the last one is an error naming the count") {
  int count = cuda::device_count();
  CHECK_THROWS_WITH(cuda::set_device(count), Contains(fmt::format("cuda:{} requested, but only {}", count, count)));
  CHECK_THROWS_WITH(cuda::check_device(-1), Contains("cuda:-1 requested"));
  CHECK(cuda::current_device() == 0);
}

TEST_CASE("synchronize waits for queued work") {
  void* buffer = nullptr;
  REQUIRE(cudaMalloc(&buffer, size_t{256} << 20) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(buffer, 7, size_t{256} << 20, nullptr) == cudaSuccess);
  cuda::synchronize(0);
  CHECK(cudaStreamQuery(nullptr) == cudaSuccess);
  unsigned char last = 0;
  REQUIRE(cudaMemcpy(&last, static_cast<char*>(buffer) + (size_t{256} << 20) - 1, 1, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(last == 7);
  REQUIRE(cudaFree(buffer) == cudaSuccess);
}
