#include "tensor/allocator.h"

#include "tensor/error.h"
#include "tensor/missing_cuda_backend.h"

namespace brisk {
namespace {

Allocator* cuda_allocator_slot = nullptr;
Allocator* sim_allocator_slot = nullptr;

}  // namespace

MemoryStats Allocator::memory_stats(Device device) {
  BRISK_FAIL("memory_stats: the allocator of {} keeps no memory statistics", device);
}

void Allocator::reset_peak_memory_stats(Device device) {
  BRISK_FAIL("reset_peak_memory_stats: the allocator of {} keeps no memory statistics", device);
}

void register_allocator(DeviceType type, Allocator* allocator) {
  BRISK_CHECK(type != DeviceType::CPU, "register_allocator: the CPU allocator is built in");
  (type == DeviceType::CUDA ? cuda_allocator_slot : sim_allocator_slot) = allocator;
}

Allocator* allocator_for(Device device) {
  switch (device.type) {
    case DeviceType::CPU: return cpu_allocator();
    case DeviceType::CUDA:
      BRISK_CHECK(cuda_allocator_slot != nullptr, "device {} requested, but {}", device,
                  detail::missing_cuda_backend_reason());
      return cuda_allocator_slot;
    case DeviceType::Sim:
      BRISK_CHECK(sim_allocator_slot != nullptr,
                  "device {} requested, but this program does not link the simulated device (depend on //tensor/sim)",
                  device);
      return sim_allocator_slot;
  }
  BRISK_FAIL("allocator_for: unknown device type");
}

}  // namespace brisk
