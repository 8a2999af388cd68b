#pragma once
// Memory for tensors. Each device type has one Allocator; the CPU one is built in, the
// CUDA backend registers its caching allocator and //tensor/sim the simulated device's
// when they are linked in.
#include <cstddef>
#include <functional>
#include <memory>

#include "tensor/device.h"
#include "tensor/memory_stats.h"

namespace brisk {

// Owning pointer to a block of memory together with the code that frees it.
using DataPtr = std::unique_ptr<void, std::function<void(void*)>>;

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
  // The counters of `device`'s memory and the reset of their peaks (tensor/memory.h). An
  // allocator that keeps none raises an error naming the device.
  virtual MemoryStats memory_stats(Device device);
  virtual void reset_peak_memory_stats(Device device);
};

// 64-byte aligned host memory.
Allocator* cpu_allocator();
// The allocator for `device`; errors if no backend for its type was linked in.
Allocator* allocator_for(Device device);
void register_allocator(DeviceType type, Allocator* allocator);

}  // namespace brisk
