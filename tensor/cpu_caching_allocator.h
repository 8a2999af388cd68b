#pragma once
// The host allocator behind CPU tensors: 64-byte aligned blocks, kept on a free list per
// size class when their tensor dies and handed out again to the next request of that class.
// A training step allocates the same sizes every iteration, so after the first step nearly
// every tensor reuses a block whose pages are already mapped, instead of a fresh
// multi-megabyte malloc that page-faults on every first touch.
//
// Caching is off (every block goes straight back to the system) when the environment sets
// BRISK_NO_CACHING_ALLOCATOR=1 and in AddressSanitizer builds, so ASan and LeakSanitizer
// still see every use after free, overflow and leak.
//
//   CpuMemoryStats s = cpu_memory_stats();  // s.cached_bytes(), s.num_cache_hits, ...
//   cpu_empty_cache();                       // give every cached block back to the system
//
// The device-neutral view of the same counters is memory_stats(kCPU) (tensor/memory.h).
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensor/allocator.h"

namespace brisk {

// The counters of every allocator (tensor/memory_stats.h; "device" there is the system's
// aligned_alloc and free), and the cache's own.
struct CpuMemoryStats : MemoryStats {
  uint64_t num_cache_hits = 0;  // blocks handed out from the cache
  // In free blocks kept for reuse.
  size_t cached_bytes() const { return reserved_bytes - allocated_bytes; }
};

class CpuCachingAllocator final : public Allocator {
 public:
  // With caching off this is a plain aligned allocator that still counts. Free blocks beyond
  // `max_cached_bytes` go back to the system.
  explicit CpuCachingAllocator(bool caching, size_t max_cached_bytes = size_t(1) << 30);
  ~CpuCachingAllocator() override;
  CpuCachingAllocator(const CpuCachingAllocator&) = delete;
  CpuCachingAllocator& operator=(const CpuCachingAllocator&) = delete;

  // Raises brisk::Error when the system refuses the memory even after the cache is emptied:
  // the message gives the request, the counters and what to try.
  DataPtr allocate(size_t nbytes, Device device) override;
  MemoryStats memory_stats(Device device) override;
  void reset_peak_memory_stats(Device device) override;

  bool caching() const { return caching_; }
  CpuMemoryStats stats() const;
  void reset_peak();
  // Frees every cached block.
  void empty_cache();

  // The block size serving `nbytes`: a multiple of 64, at most a quarter above nbytes (four
  // classes per power of two), so requests of nearly the same size share blocks.
  static size_t size_class(size_t nbytes);

 private:
  void release(void* ptr, size_t size);
  // A cached block of `size` bytes, counted as handed out; nullptr when none is cached.
  void* take_cached_block(size_t size);
  [[noreturn]] void raise_out_of_memory(size_t nbytes, size_t size);

  const bool caching_;
  const size_t max_cached_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_blocks_;  // by size class
  CpuMemoryStats stats_;
};

// The process's CPU allocator (what cpu_allocator() returns), its counters and its cache.
CpuMemoryStats cpu_memory_stats();
void cpu_empty_cache();

}  // namespace brisk
