// cuda/profiler_capture.h for a build without the CUDA toolkit: there is no profiler to tell.
#include "cuda/profiler_capture.h"

#include "tensor/error.h"

namespace brisk::cuda {

void profiler_start() {
  BRISK_FAIL("cuda::profiler_start: this build of Brisk has no CUDA support (built without CUDA)");
}
void profiler_stop() {
  BRISK_FAIL("cuda::profiler_stop: this build of Brisk has no CUDA support (built without CUDA)");
}

}  // namespace brisk::cuda
