#include "tensor/allocator.h"

#include <cstdlib>

#include "tensor/error.h"

namespace brisk {
namespace {

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device) override {
    // Round up so aligned_alloc's size is a multiple of the alignment; never hand out null.
    size_t rounded = ((nbytes + 63) / 64) * 64;
    void* ptr = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    BRISK_CHECK(ptr != nullptr, "out of host memory: failed to allocate {} bytes", nbytes);
    return DataPtr(ptr, [](void* p) { std::free(p); });
  }
};

Allocator* cuda_allocator_slot = nullptr;

}  // namespace

Allocator* cpu_allocator() {
  static CpuAllocator allocator;
  return &allocator;
}

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
