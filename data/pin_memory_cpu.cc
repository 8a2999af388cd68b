// pin_memory in a build without CUDA: there is no pinned memory to be had.
#include "cuda/device.h"
#include "data/pin_memory.h"

namespace brisk::data {

void check_pin_memory_available(const char* what) {
  BRISK_FAIL("{}: pin_memory needs a CUDA device, but CUDA cannot be used: {}", what, cuda::unavailable_reason());
}

Batch pin_memory(const Batch& batch) {
  check_pin_memory_available("pin_memory");
  return batch;
}

}  // namespace brisk::data
