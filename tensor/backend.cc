#include "tensor/backend.h"

#include <initializer_list>

#include "profiler/record.h"
#include "tensor/profiled_backend.h"

namespace brisk {
namespace {

Backend* cuda_backend_slot = nullptr;
Backend* sim_backend_slot = nullptr;

// The error of an optional kernel a backend lacks, naming the device of the kernel's first
// input (a row's inputs, whose first is always defined).
[[noreturn]] void op_missing(const char* op, std::initializer_list<const Tensor*> inputs) {
  BRISK_FAIL("{}: not implemented for device {} yet", op, (*inputs.begin())->device());
}

Backend& device_backend(Device device) {
  switch (device.type) {
    case DeviceType::CPU: return cpu_backend();
    case DeviceType::CUDA:
      BRISK_CHECK(cuda_backend_slot != nullptr,
                  "device {} requested, but no CUDA backend is linked (depend on //cuda, in a build with CUDA)",
                  device);
      return *cuda_backend_slot;
    case DeviceType::Sim:
      BRISK_CHECK(sim_backend_slot != nullptr,
                  "device {} requested, but this program does not link the simulated device (depend on //tensor/sim)",
                  device);
      return *sim_backend_slot;
  }
  BRISK_FAIL("backend_for: unknown device type");
}

}  // namespace

void register_backend(DeviceType type, Backend* backend) {
  BRISK_CHECK(type != DeviceType::CPU, "register_backend: the CPU backend is built in");
  (type == DeviceType::CUDA ? cuda_backend_slot : sim_backend_slot) = backend;
}

Backend& backend_for(Device device) {
  Backend& backend = device_backend(device);
  return profiler::is_enabled() ? profiled_backend(device.type, backend) : backend;
}

#define BRISK_BACKEND_DEFAULT(name, params, args, event, inputs) \
  void Backend::name params { op_missing(#name, {BRISK_BACKEND_UNPACK inputs}); }
BRISK_BACKEND_OPTIONAL_KERNELS(BRISK_BACKEND_DEFAULT)
#undef BRISK_BACKEND_DEFAULT

}  // namespace brisk
