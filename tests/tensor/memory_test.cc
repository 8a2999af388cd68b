// The device-neutral memory statistics (tensor/memory.h) on the CPU, the counters behind them,
// the out-of-memory error, and the allocators of a program that links no device (only //tensor).
#include <catch2/catch.hpp>

#include <string>

#include "tensor/backend.h"
#include "tensor/cpu_caching_allocator.h"
#include "tensor/memory.h"
#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

#if defined(__SANITIZE_ADDRESS__)
#define BRISK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRISK_TEST_ASAN 1
#endif
#endif

TEST_CASE("Storage::resize frees and refills the memory in place, keeping the storage and its version") {
  const size_t bytes = CpuCachingAllocator::size_class(1000 * 1000 * 4);
  Tensor t = native::zeros({1000, 1000}, kFloat32);
  Tensor view = native::alias(t);  // shares the storage, as a tensor saved for backward
  t.bump_version();
  const size_t with = memory_allocated(kCPU);
  t.storage()->resize(0);
  CHECK(memory_allocated(kCPU) == with - bytes);
  CHECK(view.storage()->nbytes() == 0);
  t.storage()->resize(t.nbytes());
  CHECK(memory_allocated(kCPU) == with);
  CHECK(view.storage() == t.storage());
  CHECK(view.version() == 1);
  native::fill_(t, 2.0);
  CHECK(view.to_vector<float>()[0] == 2.0f);
}

TEST_CASE("memory_stats(kCPU) follows the tensors' memory, and the peak resets to what is allocated now") {
  const size_t bytes = CpuCachingAllocator::size_class(1000 * 1000 * 4);
  reset_peak_memory_stats(kCPU);
  const MemoryStats before = memory_stats(kCPU);
  CHECK(before.peak_allocated_bytes == before.allocated_bytes);
  CHECK(before.reserved_bytes >= before.allocated_bytes);
  {
    Tensor t = native::empty({1000, 1000}, kFloat32);
    CHECK(memory_allocated(kCPU) == before.allocated_bytes + bytes);
    CHECK(memory_reserved(kCPU) >= memory_allocated(kCPU));
  }
  const MemoryStats after = memory_stats(kCPU);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.peak_allocated_bytes == before.allocated_bytes + bytes);
  CHECK(max_memory_allocated(kCPU) == before.allocated_bytes + bytes);
  CHECK(max_memory_reserved(kCPU) >= before.allocated_bytes + bytes);
  CHECK(after.num_allocs == before.num_allocs + 1);
  CHECK(after.num_frees == before.num_frees + 1);
  reset_peak_memory_stats(kCPU);
  CHECK(max_memory_allocated(kCPU) == after.allocated_bytes);
  CHECK(max_memory_reserved(kCPU) == memory_reserved(kCPU));
}

TEST_CASE("the CPU's counters in the device-neutral form: reserved is allocated plus cached") {
  CpuCachingAllocator allocator(true);
  {
    DataPtr a = allocator.allocate(1000, kCPU);
    DataPtr b = allocator.allocate(5000, kCPU);
  }
  DataPtr c = allocator.allocate(1000, kCPU);  // reuses a's block
  MemoryStats s = allocator.memory_stats(kCPU);
  CHECK(s.allocated_bytes == 1024);
  CHECK(s.reserved_bytes == 1024 + 5120);
  CHECK(s.peak_allocated_bytes == 1024 + 5120);
  CHECK(s.peak_reserved_bytes == 1024 + 5120);
  CHECK(s.num_allocs == 3);
  CHECK(s.num_frees == 2);
  CHECK(s.num_device_mallocs == 2);
  CHECK(s.num_device_frees == 0);
  CHECK(s.num_ooms == 0);
  allocator.empty_cache();
  s = allocator.memory_stats(kCPU);
  CHECK(s.reserved_bytes == 1024);
  CHECK(s.num_device_frees == 1);
  allocator.reset_peak_memory_stats(kCPU);
  s = allocator.memory_stats(kCPU);
  CHECK(s.peak_allocated_bytes == 1024);
  CHECK(s.peak_reserved_bytes == 1024);
}

#ifndef BRISK_TEST_ASAN  // ASan aborts on an impossible allocation instead of returning null
TEST_CASE("a CPU allocation the system refuses raises an error with the request, the figures and advice") {
  CpuCachingAllocator allocator(true);
  DataPtr kept = allocator.allocate(3000, kCPU);
  const size_t impossible = size_t(1) << 50;  // beyond any address space
  try {
    allocator.allocate(impossible, kCPU);
    FAIL("expected an out-of-memory error");
  } catch (const Error& e) {
    std::string message = e.what();
    CHECK_THAT(message, Contains("CPU out of memory: tried to allocate 1024.00 TiB"));
    CHECK_THAT(message, Contains("3.00 KiB allocated to CPU tensors (peak 3.00 KiB)"));
    CHECK_THAT(message, Contains(out_of_memory_advice()));
  }
  MemoryStats s = allocator.memory_stats(kCPU);
  CHECK(s.num_ooms == 1);
  CHECK(s.allocated_bytes == 3072);
  CHECK(s.num_allocs == 1);
  CHECK(allocator.allocate(100, kCPU) != nullptr);  // still usable
}
#endif

TEST_CASE("a CUDA tensor in a program that does not link //cuda: the error says what to link") {
  CHECK_THROWS_WITH(
      native::empty({2, 3}, cuda_device(0)),
      Contains("device cuda:0 requested") && Contains("does not link Brisk's CUDA runtime (depend on //cuda)"));
  CHECK_THROWS_WITH(backend_for(cuda_device(1)),
                    Contains("device cuda:1 requested") && Contains("no CUDA backend is linked (depend on //cuda"));
}

TEST_CASE("pinned host allocators: none until one is registered for the device type") {
  struct Host final : Allocator {
    DataPtr allocate(size_t nbytes, Device) override { return cpu_allocator()->allocate(nbytes, kCPU); }
  } pinned;
  CHECK(pinned_allocator_for(DeviceType::CPU) == nullptr);
  CHECK(pinned_allocator_for(DeviceType::CUDA) == nullptr);
  CHECK(pinned_allocator_for(DeviceType::Sim) == nullptr);
  register_allocator(DeviceType::Sim, &pinned, MemoryKind::kPinnedHost);
  CHECK(pinned_allocator_for(DeviceType::Sim) == &pinned);
  CHECK(pinned_allocator_for(DeviceType::CUDA) == nullptr);
  // The device allocator of the type is another slot: still missing.
  CHECK_THROWS_WITH(native::empty({2}, sim_device(0)), Contains("does not link the simulated device"));
  register_allocator(DeviceType::Sim, nullptr, MemoryKind::kPinnedHost);
  CHECK(pinned_allocator_for(DeviceType::Sim) == nullptr);
  CHECK_THROWS_WITH(register_allocator(DeviceType::CPU, &pinned, MemoryKind::kPinnedHost),
                    Contains("the CPU allocators are built in"));
}
