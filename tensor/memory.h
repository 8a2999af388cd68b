#pragma once
// How much memory tensors use, on any device, under torch.cuda's names:
//
//   reset_peak_memory_stats(kCPU);
//   loss.backward();
//   size_t peak = max_memory_allocated(kCPU);           // bytes, since the reset
//   MemoryStats s = memory_stats(cuda_device(0));     // every counter
//
// The figures are the allocators' own (tensor/memory_stats.h): bytes in blocks handed to
// tensors (allocated) and obtained from the system or the driver (reserved: allocated plus
// cached). CUDA figures need //cuda linked in; the simulated device keeps none of its own
// (its blocks come from the CPU allocator and count there).
#include <cstddef>

#include "tensor/device.h"
#include "tensor/memory_stats.h"

namespace brisk {

MemoryStats memory_stats(Device device);
size_t memory_allocated(Device device);
size_t max_memory_allocated(Device device);
size_t memory_reserved(Device device);
size_t max_memory_reserved(Device device);
// Starts the peaks afresh from the current figures.
void reset_peak_memory_stats(Device device);

}  // namespace brisk
