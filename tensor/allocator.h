#pragma once
// Memory for tensors. Each device type has one Allocator; the CPU one is built in, the
// CUDA runtime registers its caching allocator and //tensor/sim the simulated device's
// when they are linked in. A device type may also have a pinned host allocator (CUDA's,
// registered by //cuda): page-locked host memory for fast, asynchronous copies.
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

// What an allocator registered for a device type serves: the devices' own memory, or host
// memory page-locked ("pinned") for copies to and from those devices.
enum class MemoryKind { kDevice, kPinnedHost };

// 64-byte aligned host memory.
Allocator* cpu_allocator();
// The allocator for `device`; errors if no allocator for its type was linked in.
Allocator* allocator_for(Device device);
// The pinned host allocator of devices of `type`; nullptr when none is registered (a program
// without //cuda, a build without CUDA, the simulated device). Its allocate(nbytes, device)
// returns host memory for copies to and from `device` (kCPU: the calling thread's current
// device), and raises, saying why, when pinned memory cannot be had, even for 0 bytes.
Allocator* pinned_allocator_for(DeviceType type);
// Registers (or, in tests, replaces) the allocator of `kind` for `type`; nullptr unregisters.
void register_allocator(DeviceType type, Allocator* allocator, MemoryKind kind = MemoryKind::kDevice);

}  // namespace brisk
