#pragma once
// Counters kept by the caching allocators (device memory per device, and pinned host memory).
#include <cstddef>
#include <cstdint>
#include <string>

namespace brisk::cuda {

// Bytes where the name says so. "Device" below means where the memory comes from: cudaMalloc
// for a device, cudaHostAlloc for pinned host memory.
struct MemoryStats {
  size_t allocated_bytes = 0;       // in blocks handed out and not yet freed (rounded sizes)
  size_t reserved_bytes = 0;        // obtained from the device: allocated plus cached
  size_t peak_allocated_bytes = 0;  // since start or the last reset of peak stats
  size_t peak_reserved_bytes = 0;
  uint64_t num_allocs = 0;  // non-empty allocations served
  uint64_t num_frees = 0;
  uint64_t num_device_mallocs = 0;  // successful cudaMalloc / cudaHostAlloc calls
  uint64_t num_device_frees = 0;    // memory given back: empty_cache, out-of-memory retries
  uint64_t num_ooms = 0;            // allocations that failed even after emptying the cache
};

// "1.50 GiB", "512.00 KiB", "100 bytes".
std::string format_bytes(size_t nbytes);

}  // namespace brisk::cuda
