#include "tensor/backend.h"

#include "tensor/cpu/cpu_backend.h"

namespace brisk {
namespace {
Backend* cuda_backend_slot = nullptr;
}

void register_cuda_backend(Backend* backend) { cuda_backend_slot = backend; }

Backend& backend_for(Device device) {
  static cpu::CpuBackend cpu_backend;
  if (device.is_cpu()) return cpu_backend;
  BRISK_CHECK(cuda_backend_slot != nullptr,
              "device {} requested, but this build of Brisk has no CUDA support (built without the CUDA toolkit)",
              device);
  return *cuda_backend_slot;
}

}  // namespace brisk
