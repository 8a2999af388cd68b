// cuda/stream.h and cuda/event.h on a real GPU. Work is queued with cudaMemsetAsync and
// cudaMemcpyAsync, so these tests do not depend on the backend's kernels.
//
// A device-to-host cudaMemcpyAsync into pageable memory returns only once the copy is done:
// queued behind a StreamGate that opens after the call, it would wait forever. Every copy to
// the host that is queued behind a gate therefore lands in pinned memory (cuda/pinned_allocator.h),
// where the call returns at once and the copy runs in stream order.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <thread>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/event.h"
#include "cuda/pinned_allocator.h"
#include "cuda/stream.h"
#include "tests/cuda/stream_gate.h"

using namespace brisk;
using brisk::cuda::testing::StreamGate;
using Catch::Matchers::Contains;

namespace {

constexpr size_t kBig = size_t{512} << 20;

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t n) { BRISK_CUDA_CHECK(cudaMalloc(&ptr, n)); }
  ~DeviceBuffer() { cudaFree(ptr); }
};

}  // namespace

TEST_CASE("the current stream is the default stream until a guard sets another") {
  CHECK(cuda::current_stream(0) == cuda::default_stream());
  cuda::Stream stream(0);
  REQUIRE(stream.handle() != nullptr);
  CHECK(stream.device() == 0);
  {
    cuda::StreamGuard guard(stream);
    CHECK(cuda::current_stream(0) == stream.handle());
    {
      cuda::StreamGuard inner(cuda::default_stream(), 0);
      CHECK(cuda::current_stream(0) == cuda::default_stream());
    }
    CHECK(cuda::current_stream(0) == stream.handle());
  }
  CHECK(cuda::current_stream(0) == cuda::default_stream());
}

TEST_CASE("the current stream is per thread") {
  cuda::Stream stream(0);
  cuda::StreamGuard guard(stream);
  cudaStream_t seen_by_other_thread = stream.handle();
  std::thread([&] { seen_by_other_thread = cuda::current_stream(0); }).join();
  CHECK(seen_by_other_thread == cuda::default_stream());
  CHECK(cuda::current_stream(0) == stream.handle());
}

TEST_CASE("Stream query and synchronize follow its work") {
  cuda::Stream stream(0);
  DeviceBuffer buffer(kBig);
  for (int i = 0; i < 8; ++i) BRISK_CUDA_CHECK(cudaMemsetAsync(buffer.ptr, i, kBig, stream));
  stream.synchronize();
  CHECK(stream.query());
  unsigned char value = 0;
  BRISK_CUDA_CHECK(cudaMemcpy(&value, buffer.ptr, 1, cudaMemcpyDeviceToHost));
  CHECK(value == 7);
}

TEST_CASE("streams can be moved, and priorities are accepted") {
  int least = 0, greatest = 0;
  BRISK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cuda::Stream high(0, greatest);
  cudaStream_t handle = high.handle();
  cuda::Stream moved(std::move(high));
  CHECK(moved.handle() == handle);
  CHECK(high.handle() == nullptr);
  int priority = 0;
  BRISK_CUDA_CHECK(cudaStreamGetPriority(moved, &priority));
  CHECK(priority == greatest);
}

TEST_CASE("an event orders work across streams") {
  cuda::Stream producer(0), consumer(0);
  DeviceBuffer buffer(kBig);
  // Allocated before the gate closes: cudaHostAlloc may wait for the device.
  DataPtr memory = cuda::pinned_allocator()->allocate(kBig, kCPU);
  auto* host = static_cast<unsigned char*>(memory.get());
  std::fill(host, host + kBig, 0);
  StreamGate gate(producer);
  BRISK_CUDA_CHECK(cudaMemsetAsync(buffer.ptr, 16, kBig, producer));
  cuda::Event written;
  written.record(producer);
  written.wait(consumer);
  BRISK_CUDA_CHECK(cudaMemcpyAsync(host, buffer.ptr, kBig, cudaMemcpyDeviceToHost, consumer));
  // The producer is held at the gate, so the consumer must be waiting for it.
  CHECK_FALSE(written.query());
  CHECK_FALSE(consumer.query());
  CHECK(host[kBig - 1] == 0);
  gate.open();
  consumer.synchronize();
  CHECK(written.query());
  CHECK(host[0] == 16);
  CHECK(host[kBig / 2] == 16);
  CHECK(host[kBig - 1] == 16);
}

TEST_CASE("wait_stream orders work like an event") {
  cuda::Stream producer(0), consumer(0);
  DeviceBuffer buffer(kBig);
  DataPtr memory = cuda::pinned_allocator()->allocate(1, kCPU);
  auto* last = static_cast<unsigned char*>(memory.get());
  *last = 0;
  StreamGate gate(producer);
  BRISK_CUDA_CHECK(cudaMemsetAsync(buffer.ptr, 16, kBig, producer));
  consumer.wait_stream(producer);
  BRISK_CUDA_CHECK(
      cudaMemcpyAsync(last, static_cast<char*>(buffer.ptr) + kBig - 1, 1, cudaMemcpyDeviceToHost, consumer));
  CHECK_FALSE(consumer.query());
  CHECK(*last == 0);
  gate.open();
  consumer.synchronize();
  CHECK(*last == 16);
}

TEST_CASE("elapsed_time measures the work between two timed events") {
  cuda::Stream stream(0);
  DeviceBuffer buffer(kBig);
  cuda::Event start(true), end(true);
  start.record(stream);
  for (int i = 0; i < 10; ++i) BRISK_CUDA_CHECK(cudaMemsetAsync(buffer.ptr, i, kBig, stream));
  end.record(stream);
  end.synchronize();
  CHECK(end.query());
  float ms = start.elapsed_time(end);
  // 5 GiB written: well over 0.1 ms on any GPU, well under 10 s.
  CHECK(ms > 0.1f);
  CHECK(ms < 10000.0f);
  CHECK(start.device() == 0);
}

TEST_CASE("events: unrecorded, untimed and recorded on the current stream") {
  cuda::Event event;
  CHECK_FALSE(event.recorded());
  CHECK(event.query());
  event.synchronize();
  cuda::Event other;
  CHECK_THROWS_WITH(event.elapsed_time(other), Contains("recorded"));
  event.record();
  other.record();
  other.synchronize();
  CHECK_THROWS_WITH(event.elapsed_time(other), Contains("enable_timing"));
}
