// The caching allocator of CUDA tensors on a real GPU, through the tensor library.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <vector>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "tensor/native/ops.h"
#include "tests/cuda/stream_gate.h"

using namespace brisk;
using brisk::cuda::testing::StreamGate;
using Catch::Matchers::Contains;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

Tensor cuda_bytes(int64_t n) { return native::empty({n}, TensorOptions(kUInt8).device(cuda_device(0))); }

}  // namespace

TEST_CASE("CUDA tensors get device memory from the caching allocator") {
  cuda::empty_cache();
  MemoryStats before = cuda::memory_stats(0);
  Tensor t = cuda_bytes(1000);
  cudaPointerAttributes attributes;
  BRISK_CUDA_CHECK(cudaPointerGetAttributes(&attributes, t.raw_data()));
  CHECK(attributes.type == cudaMemoryTypeDevice);
  CHECK(attributes.device == 0);

  MemoryStats after = cuda::memory_stats(0);
  CHECK(after.allocated_bytes == before.allocated_bytes + 1024);
  CHECK(after.reserved_bytes >= before.reserved_bytes);
  CHECK(after.num_allocs == before.num_allocs + 1);

  // The memory is usable.
  std::vector<unsigned char> host(1000);
  BRISK_CUDA_CHECK(cudaMemset(t.raw_data(), 42, 1000));
  BRISK_CUDA_CHECK(cudaMemcpy(host.data(), t.raw_data(), 1000, cudaMemcpyDeviceToHost));
  CHECK(host.front() == 42);
  CHECK(host.back() == 42);
}

TEST_CASE("freed tensor memory is cached and reused without cudaMalloc") {
  void* first = nullptr;
  {
    Tensor t = cuda_bytes(3 * kMiB);
    first = t.raw_data();
  }
  MemoryStats cached = cuda::memory_stats(0);
  Tensor again = cuda_bytes(3 * kMiB);
  CHECK(again.raw_data() == first);
  CHECK(cuda::memory_stats(0).num_device_mallocs == cached.num_device_mallocs);
}

TEST_CASE("empty_cache returns unused segments and keeps used ones") {
  Tensor kept = cuda_bytes(64 * kMiB);
  { Tensor dropped = cuda_bytes(256 * kMiB); }
  size_t free_before = 0, free_after = 0, total = 0;
  BRISK_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
  MemoryStats before = cuda::memory_stats(0);
  cuda::empty_cache();
  MemoryStats after = cuda::memory_stats(0);
  BRISK_CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
  CHECK(after.reserved_bytes <= before.reserved_bytes - 256 * kMiB);
  CHECK(after.reserved_bytes >= 64 * kMiB);
  CHECK(free_after >= free_before + 256 * kMiB);
  CHECK(after.allocated_bytes == before.allocated_bytes);
}

TEST_CASE("peak statistics and their reset") {
  cuda::reset_peak_memory_stats(0);
  size_t base = cuda::memory_stats(0).allocated_bytes;
  { Tensor t = cuda_bytes(100 * kMiB); }
  MemoryStats stats = cuda::memory_stats(0);
  CHECK(stats.peak_allocated_bytes >= base + 100 * kMiB);
  CHECK(stats.allocated_bytes == base);
  cuda::reset_peak_memory_stats();
  CHECK(cuda::memory_stats().peak_allocated_bytes == base);
}

TEST_CASE("a tensor allocated on a user stream comes from that stream's pool") {
  void* on_default = nullptr;
  { on_default = cuda_bytes(5 * kMiB).raw_data(); }
  cuda::Stream stream(0);
  cuda::StreamGuard guard(stream);
  Tensor t = cuda_bytes(5 * kMiB);
  CHECK(t.raw_data() != on_default);
}

TEST_CASE("record_stream keeps memory from reuse until the other stream's work is done") {
  cuda::Stream side(0);
  size_t n = 256 * kMiB;
  void* ptr = nullptr;
  StreamGate gate(side);
  {
    Tensor t = cuda_bytes(static_cast<int64_t>(n));
    ptr = t.raw_data();
    // Work on the side stream that uses t, held back by the gate; t is freed meanwhile.
    BRISK_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 1, n, side));
    cuda::record_stream(t, side);
  }
  Tensor during = cuda_bytes(static_cast<int64_t>(n));
  CHECK(during.raw_data() != ptr);
  gate.open();
  side.synchronize();
  Tensor after = cuda_bytes(static_cast<int64_t>(n));
  CHECK(after.raw_data() == ptr);
}

TEST_CASE("a tensor that recorded a stream is freed safely after the stream is destroyed") {
  // Like a tensor used in a collective and freed after destroy_process_group().
  size_t n = 64 * kMiB;
  void* ptr = nullptr;
  {
    Tensor t = cuda_bytes(static_cast<int64_t>(n));
    ptr = t.raw_data();
    {
      cuda::Stream side(0);
      BRISK_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 1, n, side));
      cuda::record_stream(t, side);
    }  // the stream retires itself (t now waits for an event after the memset) and is destroyed
  }    // freeing t records nothing on the dead stream (before: an error in a deleter, std::terminate)
  CHECK(cudaGetLastError() == cudaSuccess);
  cuda::synchronize(0);
  // The memset has finished: the memory is reused on its own stream.
  Tensor again = cuda_bytes(static_cast<int64_t>(n));
  CHECK(again.raw_data() == ptr);
}

TEST_CASE("a stream's cached memory is never handed to a later stream") {
  void* ptr = nullptr;
  {
    cuda::Stream first(0);
    cuda::StreamGuard guard(first);
    ptr = cuda_bytes(5 * kMiB).raw_data();
  }
  // CUDA often gives the next stream the destroyed one's handle; the allocator tells them apart.
  cuda::Stream second(0);
  cuda::StreamGuard guard(second);
  Tensor t = cuda_bytes(5 * kMiB);
  CHECK(t.raw_data() != ptr);
}

TEST_CASE("record_stream needs a CUDA tensor") {
  cuda::Stream side(0);
  Tensor cpu = native::empty({4});
  CHECK_THROWS_WITH(cuda::record_stream(cpu, side), Contains("expected a CUDA tensor"));
}

TEST_CASE("empty CUDA tensors allocate nothing") {
  MemoryStats before = cuda::memory_stats(0);
  Tensor t = cuda_bytes(0);
  CHECK(t.numel() == 0);
  CHECK(cuda::memory_stats(0).num_allocs == before.num_allocs);
}

TEST_CASE("out of memory raises an error with the request, the device's memory and advice") {
  size_t free = 0, total = 0;
  BRISK_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  int64_t too_much = static_cast<int64_t>(total) * 2;
  try {
    cuda_bytes(too_much);
    FAIL("expected an out-of-memory error");
  } catch (const Error& e) {
    std::string message = e.what();
    CHECK_THAT(message, Contains("CUDA out of memory on cuda:0: tried to allocate "));
    CHECK_THAT(message, Contains(" total; Brisk has "));
    CHECK_THAT(message, Contains(out_of_memory_advice()));
  }
  CHECK(cuda::memory_stats(0).num_ooms >= 1);
  // The device is still usable afterwards.
  CHECK(cudaGetLastError() == cudaSuccess);
  Tensor t = cuda_bytes(1024);
  BRISK_CUDA_CHECK(cudaMemset(t.raw_data(), 0, 1024));
  cuda::synchronize(0);
}
