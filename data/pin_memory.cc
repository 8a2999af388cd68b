#include "data/pin_memory.h"

#include "cuda/device.h"
#include "tensor/allocator.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

Allocator& require_pinned_allocator(const char* what) {
  Allocator* pinned = pinned_allocator_for(DeviceType::CUDA);
  BRISK_CHECK(pinned != nullptr, "{}: cannot pin memory: pinned memory needs CUDA, but {}", what,
              cuda::unavailable_reason());
  return *pinned;
}

}  // namespace

void check_pin_memory_available(const char* what) {
  Allocator& pinned = require_pinned_allocator(what);
  // Allocates nothing, but raises, saying why, when pinned memory cannot be had (no GPU).
  try {
    pinned.allocate(0, kCPU);
  } catch (const Error& e) {
    BRISK_FAIL("{}: cannot pin memory: {}", what, e.what());
  }
}

Device default_pin_memory_device() {
  check_pin_memory_available("pin_memory");
  return cuda_device(cuda::current_device());
}

Batch pin_memory(const Batch& batch, Device device) {
  BRISK_CHECK(device.is_cuda(), "pin_memory: pinned memory is for copies to a CUDA device, but {} was given", device);
  require_pinned_allocator("pin_memory");  // empty_pinned would fall back to plain memory
  auto pin = [&](const Tensor& t) {
    if (!t.defined() || !t.is_cpu()) return t;
    Tensor copy = native::empty_pinned(t.sizes(), t.dtype(), device);
    native::copy_(copy, t);
    return copy;
  };
  return {pin(batch.data), pin(batch.target)};
}

}  // namespace brisk::data
