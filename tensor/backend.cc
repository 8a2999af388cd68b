#include "tensor/backend.h"

#include <array>
#include <vector>

#include "profiler/record.h"
#include "tensor/profiled_backend.h"

namespace brisk {
namespace {

// The registered backends of the non-CPU device types (DeviceType::CUDA and Sim).
std::array<Backend*, 3> registered{};

Device device_of(const Tensor* input) { return input->device(); }
Device device_of(const std::vector<Tensor>* inputs) { return inputs->front().device(); }

// The error of an optional kernel a backend lacks, naming the device of the kernel's first
// input (a row's inputs, whose first is always defined: a tensor or a non-empty list).
template <typename First, typename... Rest>
[[noreturn]] void op_missing(const char* op, const First* first, const Rest*...) {
  BRISK_FAIL("{}: not implemented for device {} yet", op, device_of(first));
}

Backend& device_backend(Device device) {
  if (device.is_cpu()) return cpu_backend();
  Backend* backend = registered[static_cast<size_t>(device.type)];
  BRISK_CHECK(backend != nullptr, "device {} requested, but {}", device,
              device.is_cuda() ? "no CUDA backend is linked (depend on //cuda, in a build with CUDA)"
                               : "this program does not link the simulated device (depend on //tensor/sim)");
  return *backend;
}

}  // namespace

void register_backend(DeviceType type, Backend* backend) {
  BRISK_CHECK(type != DeviceType::CPU, "register_backend: the CPU backend is built in");
  registered.at(static_cast<size_t>(type)) = backend;
}

Backend& backend_for(Device device) {
  Backend& backend = device_backend(device);
  return profiler::is_enabled() ? profiled_backend(device.type, backend) : backend;
}

#define BRISK_BACKEND_DEFAULT(name, params, args, event, inputs) \
  void Backend::name params { op_missing(#name, BRISK_BACKEND_UNPACK inputs); }
BRISK_BACKEND_OPTIONAL_KERNELS(BRISK_BACKEND_DEFAULT)
#undef BRISK_BACKEND_DEFAULT

}  // namespace brisk
