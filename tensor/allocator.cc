#include "tensor/allocator.h"

#include <array>

#include "tensor/error.h"

namespace brisk {
namespace {

struct Slots {
  Allocator* device = nullptr;
  Allocator* pinned_host = nullptr;
};

// By DeviceType; the CPU's stay empty (its allocators are built in).
std::array<Slots, 3> registered;

Slots& slots_of(DeviceType type) { return registered[static_cast<size_t>(type)]; }

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

Allocator* pinned_allocator_for(DeviceType type) { return slots_of(type).pinned_host; }

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  Allocator* allocator = slots_of(device.type).device;
  BRISK_CHECK(
      allocator != nullptr, "device {} requested, but this program does not link {}", device,
      device.is_cuda() ? "Brisk's CUDA runtime (depend on //cuda)" : "the simulated device (depend on //tensor/sim)");
  return allocator;
}

}  // namespace brisk
