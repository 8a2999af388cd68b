#include "tensor/allocator.h"

#include "tensor/error.h"

namespace brisk {
namespace {

struct Slots {
  Allocator* device = nullptr;
  Allocator* pinned_host = nullptr;
};

Slots cuda_slots;
Slots sim_slots;

Slots& slots_of(DeviceType type) { return type == DeviceType::CUDA ? cuda_slots : sim_slots; }

}  // namespace

MemoryStats Allocator::memory_stats(Device device) {
  BRISK_FAIL("memory_stats: the allocator of {} keeps no memory statistics", device);
}

void Allocator::reset_peak_memory_stats(Device device) {
  BRISK_FAIL("reset_peak_memory_stats: the allocator of {} keeps no memory statistics", device);
}

void register_allocator(DeviceType type, Allocator* allocator, MemoryKind kind) {
  BRISK_CHECK(type != DeviceType::CPU, "register_allocator: the CPU allocators are built in");
  Slots& slots = slots_of(type);
  (kind == MemoryKind::kDevice ? slots.device : slots.pinned_host) = allocator;
}

Allocator* pinned_allocator_for(DeviceType type) {
  return type == DeviceType::CPU ? nullptr : slots_of(type).pinned_host;
}

Allocator* allocator_for(Device device) {
  switch (device.type) {
    case DeviceType::CPU: return cpu_allocator();
    case DeviceType::CUDA:
      BRISK_CHECK(cuda_slots.device != nullptr,
                  "device {} requested, but this program does not link Brisk's CUDA runtime (depend on //cuda)",
                  device);
      return cuda_slots.device;
    case DeviceType::Sim:
      BRISK_CHECK(sim_slots.device != nullptr,
                  "device {} requested, but this program does not link the simulated device (depend on //tensor/sim)",
                  device);
      return sim_slots.device;
  }
  BRISK_FAIL("allocator_for: unknown device type");
}

}  // namespace brisk
