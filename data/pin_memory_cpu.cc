// Pinned memory in a build without CUDA: there is none to be had, and every call says why.
#include "cuda/device.h"
#include "data/pinned_memory_runtime.h"
#include "tensor/error.h"

namespace brisk::data {
namespace {

class NoPinnedMemory final : public PinnedMemoryRuntime {
 public:
  std::string unavailable_reason() const override { return cuda::unavailable_reason(); }
  int current_device() const override { return cuda::current_device(); }
  void set_device(int device) override { cuda::set_device(device); }
  Tensor pin(const Tensor&) override { BRISK_FAIL("pin_memory: {}", cuda::unavailable_reason()); }
};

}  // namespace

PinnedMemoryRuntime& builtin_pinned_memory_runtime() {
  static NoPinnedMemory runtime;
  return runtime;
}

}  // namespace brisk::data
