#include "tensor/allocator.h"

#include "tensor/error.h"

namespace brisk {
namespace {

Allocator* cuda_allocator_slot = nullptr;

}  // namespace

void register_allocator(DeviceType type, Allocator* allocator) {
  BRISK_CHECK(type == DeviceType::CUDA, "register_allocator: only the CUDA allocator can be replaced");
  cuda_allocator_slot = allocator;
}

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  BRISK_CHECK(cuda_allocator_slot != nullptr,
              "device {} requested, but this build of Brisk has no CUDA support (built without the CUDA toolkit)",
              device);
  return cuda_allocator_slot;
}

}  // namespace brisk
