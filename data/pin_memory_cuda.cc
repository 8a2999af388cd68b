// pin_memory in a build with CUDA: batches go to the pinned cache of cuda/pinned_allocator.h.
#include "cuda/device.h"
#include "cuda/pinned_allocator.h"
#include "data/pin_memory.h"

namespace brisk::data {
namespace {

Tensor pin(const Tensor& t) { return t.defined() && t.is_cpu() ? cuda::pin_memory(t) : t; }

}  // namespace

void check_pin_memory_available(const char* what) {
  BRISK_CHECK(cuda::is_available(), "{}: pin_memory needs a CUDA device, but CUDA cannot be used: {}", what,
              cuda::unavailable_reason());
}

Batch pin_memory(const Batch& batch) {
  check_pin_memory_available("pin_memory");
  return {pin(batch.data), pin(batch.target)};
}

}  // namespace brisk::data
