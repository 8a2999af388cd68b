// Placing ops' GPU times on the host's clock (cuda/gpu_op_times.h), on the CPU with fake
// events that, like CUDA's, measure time only between two events of one device.
#include "cuda/gpu_op_times.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace brisk;
using namespace brisk::cuda;

namespace {

// A completed event: its device, and the time on that device's GPU clock.
struct FakeMark {
  int device;
  float gpu_ms;
};

// cudaEventElapsedTime refuses events of two devices (cudaErrorInvalidResourceHandle).
float elapsed_ms(const FakeMark& from, const FakeMark& to) {
  if (from.device != to.device) {
    throw std::logic_error("elapsed time between cuda:" + std::to_string(from.device) +
                           " and cuda:" + std::to_string(to.device));
  }
  return to.gpu_ms - from.gpu_ms;
}

GpuOpTime<FakeMark> op(std::string name, int device, int64_t host_start_ns, float begin_ms, float end_ms) {
  return {std::move(name), device, host_start_ns, {device, begin_ms}, {device, end_ms}};
}

}  // namespace

TEST_CASE("GPU times are placed on the host's clock through the first op of the same device") {
  // Ops of two GPUs, interleaved as they ended; each GPU's clock has its own zero.
  std::vector<GpuOpTime<FakeMark>> ops{
      op("conv2d", 0, 1'000'000, 5.0f, 7.0f),
      op("mul", 1, 1'500'000, 100.0f, 100.5f),
      op("add", 0, 3'000'000, 9.0f, 12.0f),
      op("relu", 1, 2'000'000, 101.0f, 103.0f),
  };
  std::vector<profiler::Event> events = gpu_op_events(ops, elapsed_ms);
  REQUIRE(events.size() == 4);
  auto check = [&](size_t i, const char* name, int64_t start_ns, int64_t end_ns, int device) {
    INFO(name);
    CHECK(events[i].name == name);
    CHECK(events[i].category == profiler::Category::Kernel);
    CHECK(events[i].start_ns == start_ns);
    CHECK(events[i].end_ns == end_ns);
    CHECK(events[i].thread_id == -1 - device);
    CHECK(events[i].args == profiler::Args{{"device", "cuda:" + std::to_string(device)}});
  };
  // cuda:0 from conv2d's host start: add began 4 ms after conv2d on that GPU.
  check(0, "conv2d", 1'000'000, 3'000'000, 0);
  check(2, "add", 5'000'000, 8'000'000, 0);
  // cuda:1 from mul's host start, never measured against cuda:0's events.
  check(1, "mul", 1'500'000, 2'000'000, 1);
  check(3, "relu", 2'500'000, 4'500'000, 1);
}

TEST_CASE("no GPU times give no events") {
  CHECK(gpu_op_events(std::vector<GpuOpTime<FakeMark>>{}, elapsed_ms).empty());
}
