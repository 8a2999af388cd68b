// Pinned host memory and copy_bytes on a real GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <numeric>
#include <vector>

#include "cuda/copy.h"
#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/event.h"
#include "cuda/pinned_allocator.h"
#include "cuda/stream.h"
#include "tensor/native/ops.h"
#include "tests/cuda/stream_gate.h"

using namespace brisk;
using brisk::cuda::testing::StreamGate;
using Catch::Matchers::Contains;

namespace {

constexpr size_t kBytes = size_t{64} << 20;

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t n) { BRISK_CUDA_CHECK(cudaMalloc(&ptr, n)); }
  ~DeviceBuffer() { cudaFree(ptr); }
};

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

}  // namespace

TEST_CASE("pin_memory copies a CPU tensor into pinned memory") {
  std::vector<float> values = iota(1000);
  Tensor t = native::from_vector(values, {10, 100}, kFloat32);
  CHECK_FALSE(cuda::is_pinned(t));
  Tensor transposed = native::transpose(t, 0, 1);
  Tensor pinned = cuda::pin_memory(transposed);
  CHECK(cuda::is_pinned(pinned));
  CHECK(pinned.is_cpu());
  CHECK(pinned.is_contiguous());
  CHECK(pinned.sizes() == Shape{100, 10});
  CHECK(pinned.to_vector<float>() == transposed.to_vector<float>());
  CHECK(cuda::pin_memory(pinned).is_same(pinned));

  cudaPointerAttributes attributes;
  BRISK_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pinned.raw_data()));
  CHECK(attributes.type == cudaMemoryTypeHost);
}

TEST_CASE("pin_memory refuses CUDA tensors") {
  Tensor device = native::empty({4}, cuda_device(0));
  CHECK_THROWS_WITH(cuda::pin_memory(device), Contains("only CPU tensors can be pinned"));
}

TEST_CASE("pinned memory is cached") {
  void* first = nullptr;
  { first = cuda::pinned_allocator()->allocate(5000, kCPU).get(); }
  MemoryStats before = cuda::pinned_memory_stats();
  {
    DataPtr again = cuda::pinned_allocator()->allocate(6000, kCPU);
    CHECK(again.get() == first);
  }
  CHECK(cuda::pinned_memory_stats().num_device_mallocs == before.num_device_mallocs);
  cuda::empty_pinned_cache();
  CHECK(cuda::pinned_memory_stats().reserved_bytes < before.reserved_bytes);
}

TEST_CASE("copy_bytes round trip from pageable memory, blocking and not") {
  for (bool non_blocking : {false, true}) {
    std::vector<float> src = iota(kBytes / sizeof(float));
    std::vector<float> back(src.size(), 0.0f);
    DeviceBuffer device(kBytes);
    cuda::Stream stream(0);
    cuda::copy_bytes(device.ptr, src.data(), kBytes, cudaMemcpyHostToDevice, stream, non_blocking);
    // Pageable memory: copy_bytes waited, so the source can be overwritten at once.
    std::fill(src.begin(), src.end(), -1.0f);
    cuda::copy_bytes(back.data(), device.ptr, kBytes, cudaMemcpyDeviceToHost, stream, non_blocking);
    CHECK(back.front() == 1.0f);
    CHECK(back.back() == static_cast<float>(back.size()));
  }
}

TEST_CASE("non-blocking copies from pinned memory run in stream order") {
  size_t n = kBytes / sizeof(float);
  std::vector<float> values = iota(n);
  Tensor src = cuda::pin_memory(native::from_vector(values, {static_cast<int64_t>(n)}, kFloat32));
  Tensor dst = cuda::pin_memory(native::zeros({static_cast<int64_t>(n)}, kFloat32));
  DeviceBuffer device(kBytes);
  DeviceBuffer copy(kBytes);
  cuda::Stream stream(0);
  cuda::copy_bytes(device.ptr, src.raw_data(), kBytes, cudaMemcpyHostToDevice, stream, true);
  cuda::copy_bytes(copy.ptr, device.ptr, kBytes, cudaMemcpyDeviceToDevice, stream, true);
  cuda::copy_bytes(dst.raw_data(), copy.ptr, kBytes, cudaMemcpyDeviceToHost, stream, true);
  stream.synchronize();
  std::vector<float> out = dst.to_vector<float>();
  CHECK(out.front() == 1.0f);
  CHECK(out[n / 2] == values[n / 2]);
  CHECK(out.back() == values.back());
}

TEST_CASE("pinned memory of a pending copy is not reused when its tensor is freed") {
  // Everything this case allocates is in place before the gate closes: cudaHostAlloc and
  // cudaFreeHost may wait for the device, which the gate holds back. From an empty cache, the
  // copy's source and one spare block of the same size class, so the allocations below are
  // served from the cache whatever cases ran before.
  cuda::empty_pinned_cache();
  Tensor host = cuda::pin_memory(native::zeros({static_cast<int64_t>(kBytes)}, kUInt8));
  void* pinned_ptr = host.raw_data();
  void* spare_ptr = cuda::pinned_allocator()->allocate(kBytes, kCPU).get();  // freed at once: cached
  REQUIRE(spare_ptr != pinned_ptr);
  cuda::Stream stream(0);
  DeviceBuffer device(kBytes);
  StreamGate gate(stream);
  cuda::copy_bytes(device.ptr, host.raw_data(), kBytes, cudaMemcpyHostToDevice, stream, true);
  host = Tensor();
  // The copy is held at the gate: the freed pinned block must not be handed out; the spare is.
  DataPtr during = cuda::pinned_allocator()->allocate(kBytes, kCPU);
  CHECK(during.get() == spare_ptr);
  gate.open();
  stream.synchronize();
  DataPtr after = cuda::pinned_allocator()->allocate(kBytes, kCPU);
  CHECK(after.get() == pinned_ptr);
}

TEST_CASE("copy_bytes refuses other copy kinds") {
  int a = 0, b = 0;
  CHECK_THROWS_WITH(cuda::copy_bytes(&a, &b, sizeof(int), cudaMemcpyHostToHost, cuda::default_stream(), false),
                    Contains("unsupported copy kind"));
}
