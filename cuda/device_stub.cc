// cuda/device.h for a build without the CUDA toolkit: nothing is available, and anything
// that needs a device says so.
#include "cuda/device.h"

#include "tensor/allocator.h"
#include "tensor/error.h"

namespace brisk::cuda {

bool is_available() { return false; }
int device_count() { return 0; }
std::string build_info() { return "built without CUDA"; }
std::string unavailable_reason() { return "built without CUDA"; }

void check_device(int device) {
  BRISK_FAIL("cuda:{} requested, but this build of Brisk has no CUDA support (built without CUDA)", device);
}
int current_device() {
  check_device(0);
  return 0;
}
void set_device(int device) { check_device(device); }
void synchronize(int device) { check_device(device); }
void synchronize() { check_device(0); }
void synchronize_current_stream(int device) { check_device(device); }
DeviceGuard::DeviceGuard(int device) : previous_(0), device_(device) { check_device(device); }
DeviceGuard::~DeviceGuard() = default;

namespace {

// CUDA tensors in a program that links //cuda but was built without it: say so.
class NoCudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t, Device device) override {
    check_device(device.index);
    return nullptr;
  }
};

[[maybe_unused]] const bool registered = [] {
  static NoCudaAllocator allocator;
  register_allocator(DeviceType::CUDA, &allocator);
  return true;
}();

}  // namespace

}  // namespace brisk::cuda
