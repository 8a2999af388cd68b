// The caching CPU allocator: size classes, reuse of freed blocks, its counters, the cache
// limit, emptying, the non-caching mode and concurrent use.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tensor/cpu_caching_allocator.h"
#include "tensor/native/ops.h"
#include "tests/thread_checks.h"

using namespace brisk;

namespace {

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

}  // namespace

TEST_CASE("size classes are multiples of 64 at most a quarter above the request") {
  CHECK(CpuCachingAllocator::size_class(0) == 64);
  CHECK(CpuCachingAllocator::size_class(1) == 64);
  CHECK(CpuCachingAllocator::size_class(65) == 128);
  CHECK(CpuCachingAllocator::size_class(256) == 256);
  CHECK(CpuCachingAllocator::size_class(257) == 320);  // 256 + 64
  CHECK(CpuCachingAllocator::size_class(1000) == 1024);
  CHECK(CpuCachingAllocator::size_class(1025) == 1280);        // 1024 + 256
  CHECK(CpuCachingAllocator::size_class(4816896) == 5242880);  // 4.59 MiB -> 5 MiB
  for (size_t n = 1; n < (size_t(1) << 22); n = n * 3 / 2 + 7) {
    size_t c = CpuCachingAllocator::size_class(n);
    INFO("nbytes " << n << " class " << c);
    CHECK(c % 64 == 0);
    CHECK(c >= n);
    CHECK(c <= std::max<size_t>(64, n + n / 4 + 64));
    CHECK(CpuCachingAllocator::size_class(c) == c);
  }
}

TEST_CASE("a freed block is handed out again for a request of its size class") {
  CpuCachingAllocator allocator(true);
  void* first;
  {
    DataPtr a = allocator.allocate(1000, kCPU);
    first = a.get();
    CHECK(aligned(first));
    std::memset(first, 0xab, 1000);
    CpuMemoryStats s = allocator.stats();
    CHECK(s.allocated_bytes == 1024);
    CHECK(s.cached_bytes() == 0);
    CHECK(s.num_device_mallocs == 1);
  }
  CpuMemoryStats s = allocator.stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.cached_bytes() == 1024);
  CHECK(s.num_device_frees == 0);

  DataPtr b = allocator.allocate(1010, kCPU);  // same class (1024)
  CHECK(b.get() == first);
  DataPtr c = allocator.allocate(1010, kCPU);  // the cached block is taken: a new one
  CHECK(c.get() != first);
  DataPtr d = allocator.allocate(4000, kCPU);  // another class
  CHECK(d.get() != first);
  s = allocator.stats();
  CHECK(s.num_allocs == 4);
  CHECK(s.num_cache_hits == 1);
  CHECK(s.num_device_mallocs == 3);
  CHECK(s.allocated_bytes == 1024 + 1024 + 4096);
  CHECK(s.peak_allocated_bytes == 1024 + 1024 + 4096);
  CHECK(s.cached_bytes() == 0);
}

TEST_CASE("the peak is reset to what is allocated now") {
  CpuCachingAllocator allocator(true);
  { DataPtr big = allocator.allocate(1 << 20, kCPU); }
  DataPtr small = allocator.allocate(100, kCPU);
  CHECK(allocator.stats().peak_allocated_bytes == (1 << 20));
  allocator.reset_peak();
  CHECK(allocator.stats().peak_allocated_bytes == 128);
}

TEST_CASE("empty_cache gives every cached block back") {
  CpuCachingAllocator allocator(true);
  { DataPtr a = allocator.allocate(100, kCPU), b = allocator.allocate(5000, kCPU), c = allocator.allocate(5000, kCPU); }
  CHECK(allocator.stats().cached_bytes() == 128 + 5120 + 5120);
  allocator.empty_cache();
  CpuMemoryStats s = allocator.stats();
  CHECK(s.cached_bytes() == 0);
  CHECK(s.num_device_frees == 3);
  DataPtr again = allocator.allocate(5000, kCPU);
  CHECK(allocator.stats().num_cache_hits == 0);
}

TEST_CASE("blocks beyond the cache limit go back to the system") {
  CpuCachingAllocator allocator(true, 8192);
  {
    DataPtr a = allocator.allocate(4096, kCPU), b = allocator.allocate(4096, kCPU), c = allocator.allocate(4096, kCPU);
  }
  CpuMemoryStats s = allocator.stats();
  CHECK(s.cached_bytes() == 8192);
  CHECK(s.num_device_frees == 1);
}

TEST_CASE("without caching every block goes back to the system, and the counters still count") {
  CpuCachingAllocator allocator(false);
  { DataPtr a = allocator.allocate(3000, kCPU); }
  DataPtr b = allocator.allocate(3000, kCPU);
  CHECK(aligned(b.get()));
  CpuMemoryStats s = allocator.stats();
  CHECK(s.num_allocs == 2);
  CHECK(s.num_cache_hits == 0);
  CHECK(s.num_device_mallocs == 2);
  CHECK(s.num_device_frees == 1);
  CHECK(s.cached_bytes() == 0);
  CHECK(s.allocated_bytes == 3072);
}

TEST_CASE("threads allocating and freeing at once keep the counters balanced") {
  CpuCachingAllocator allocator(true);
  testing::run_threads(4, "thread", [&allocator](int t) {
    for (int i = 0; i < 2000; ++i) {
      size_t n = 64 * (1 + (i * 7 + t) % 50);
      DataPtr a = allocator.allocate(n, kCPU);
      std::memset(a.get(), t, n);  // a block is never handed to two owners at once
      DataPtr b = allocator.allocate(n + 1, kCPU);
      std::memset(b.get(), t + 1, n + 1);
      THREAD_REQUIRE(static_cast<unsigned char*>(a.get())[n - 1] == t);
    }
  });
  CpuMemoryStats s = allocator.stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == 4 * 2000 * 2);
  CHECK(s.num_allocs == s.num_cache_hits + s.num_device_mallocs);
}

TEST_CASE("CPU tensors reuse the blocks of dead tensors of the same size") {
  auto* allocator = dynamic_cast<CpuCachingAllocator*>(cpu_allocator());
  REQUIRE(allocator != nullptr);
  const char* off = std::getenv("BRISK_NO_CACHING_ALLOCATOR");
  if (off != nullptr && std::strcmp(off, "1") == 0) CHECK_FALSE(allocator->caching());
  { Tensor warm = native::empty({1000, 37}, kFloat32); }
  CpuMemoryStats before = cpu_memory_stats();
  { Tensor t = native::empty({1000, 37}, kFloat32); }
  CpuMemoryStats after = cpu_memory_stats();
  CHECK(after.num_allocs == before.num_allocs + 1);
  // Off under ASan and BRISK_NO_CACHING_ALLOCATOR=1.
  CHECK(after.num_cache_hits == before.num_cache_hits + (allocator->caching() ? 1 : 0));
  cpu_empty_cache();
  CHECK(cpu_memory_stats().cached_bytes() == 0);
}
