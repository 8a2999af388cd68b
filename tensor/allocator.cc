#include "tensor/allocator.h"

#include "tensor/error.h"

namespace brisk {
namespace detail {
// tensor/missing_cuda_backend.cc. Declared here: a new header of the tensor library would be
// an input of every compile above it, the CUDA kernels' included.
const char* missing_cuda_backend_reason();
}  // namespace detail

namespace {

Allocator* cuda_allocator_slot = nullptr;

}  // namespace

void register_allocator(DeviceType type, Allocator* allocator) {
  BRISK_CHECK(type == DeviceType::CUDA, "register_allocator: only the CUDA allocator can be replaced");
  cuda_allocator_slot = allocator;
}

Allocator* allocator_for(Device device) {
  if (device.is_cpu()) return cpu_allocator();
  BRISK_CHECK(cuda_allocator_slot != nullptr, "device {} requested, but {}", device,
              detail::missing_cuda_backend_reason());
  return cuda_allocator_slot;
}

}  // namespace brisk
