#include "data/pin_memory.h"

#include "data/pinned_memory_runtime.h"
#include "tensor/error.h"

namespace brisk::data {
namespace {

// Makes `device` the thread's current device for a scope; a destructor never throws, so the
// previous device is restored without checks (it was valid when the scope began).
class CurrentDeviceScope {
 public:
  CurrentDeviceScope(PinnedMemoryRuntime& runtime, int device)
      : runtime_(runtime), previous_(runtime.current_device()), device_(device) {
    if (device_ != previous_) runtime_.set_device(device_);
  }
  ~CurrentDeviceScope() {
    if (device_ == previous_) return;
    try {
      runtime_.set_device(previous_);
    } catch (...) {
    }
  }
  CurrentDeviceScope(const CurrentDeviceScope&) = delete;
  CurrentDeviceScope& operator=(const CurrentDeviceScope&) = delete;

 private:
  PinnedMemoryRuntime& runtime_;
  int previous_;
  int device_;
};

}  // namespace

void check_pin_memory_available(const char* what) {
  std::string reason = pinned_memory_runtime().unavailable_reason();
  BRISK_CHECK(reason.empty(), "{}: pin_memory needs a CUDA device, but CUDA cannot be used: {}", what, reason);
}

Device default_pin_memory_device() {
  check_pin_memory_available("pin_memory");
  return cuda_device(pinned_memory_runtime().current_device());
}

Batch pin_memory(const Batch& batch, Device device) {
  check_pin_memory_available("pin_memory");
  BRISK_CHECK(device.is_cuda(), "pin_memory: pinned memory is for copies to a CUDA device, but {} was given", device);
  PinnedMemoryRuntime& runtime = pinned_memory_runtime();
  CurrentDeviceScope scope(runtime, device.index);
  auto pin = [&](const Tensor& t) { return t.defined() && t.is_cpu() ? runtime.pin(t) : t; };
  return {pin(batch.data), pin(batch.target)};
}

}  // namespace brisk::data
