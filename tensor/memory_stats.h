#pragma once
// The counters every allocator of tensor memory keeps, whatever the device: the CPU's
// (tensor/cpu_caching_allocator.h), each CUDA device's and the pinned host memory's
// (cuda/caching_allocator.h, cuda/host_caching_allocator.h). tensor/memory.h reads them by
// device, under torch.cuda's names.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "brisk/requires_cxx17.h"

namespace brisk {

// Bytes where the name says so, in the allocator's rounded block sizes. "Device" below means
// where the memory comes from: aligned_alloc for the CPU, cudaMalloc for a CUDA device,
// cudaHostAlloc for pinned host memory.
struct MemoryStats {
  size_t allocated_bytes = 0;       // in blocks handed out and not yet freed
  size_t reserved_bytes = 0;        // obtained from the device: allocated plus cached
  size_t peak_allocated_bytes = 0;  // since start or the last reset of peak stats
  size_t peak_reserved_bytes = 0;
  uint64_t num_allocs = 0;  // non-empty allocations served
  uint64_t num_frees = 0;
  uint64_t num_device_mallocs = 0;  // successful aligned_alloc / cudaMalloc / cudaHostAlloc calls
  uint64_t num_device_frees = 0;    // memory given back: empty_cache, out-of-memory retries, cache limits
  uint64_t num_ooms = 0;            // allocations that failed even after emptying the cache

  // The allocators' bookkeeping: a block handed out or freed, memory obtained from or given
  // back to the device, and peaks reset to the present.
  void count_allocation(size_t bytes) {
    allocated_bytes += bytes;
    peak_allocated_bytes = std::max(peak_allocated_bytes, allocated_bytes);
    ++num_allocs;
  }
  void count_free(size_t bytes) {
    allocated_bytes -= bytes;
    ++num_frees;
  }
  void count_device_malloc(size_t bytes) {
    reserved_bytes += bytes;
    peak_reserved_bytes = std::max(peak_reserved_bytes, reserved_bytes);
    ++num_device_mallocs;
  }
  void count_device_free(size_t bytes) {
    reserved_bytes -= bytes;
    ++num_device_frees;
  }
  void reset_peaks() {
    peak_allocated_bytes = allocated_bytes;
    peak_reserved_bytes = reserved_bytes;
  }
};

// "1.50 GiB", "512.00 KiB", "100 bytes".
std::string format_bytes(size_t nbytes);

// What an out-of-memory error on any device tells the user to try, as one sentence.
const char* out_of_memory_advice();

}  // namespace brisk
