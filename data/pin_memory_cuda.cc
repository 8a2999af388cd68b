// Pinned memory in a build with CUDA: the pinned cache of cuda/pinned_allocator.h.
#include "cuda/device.h"
#include "cuda/pinned_allocator.h"
#include "data/pinned_memory_runtime.h"

namespace brisk::data {
namespace {

class CudaPinnedMemory final : public PinnedMemoryRuntime {
 public:
  std::string unavailable_reason() const override { return cuda::unavailable_reason(); }
  int current_device() const override { return cuda::current_device(); }
  void set_device(int device) override { cuda::set_device(device); }
  Tensor pin(const Tensor& tensor) override { return cuda::pin_memory(tensor); }
};

}  // namespace

PinnedMemoryRuntime& builtin_pinned_memory_runtime() {
  static CudaPinnedMemory runtime;
  return runtime;
}

}  // namespace brisk::data
