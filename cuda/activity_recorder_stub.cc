// cuda/activity_recorder.h for a build without the CUDA toolkit: there is no GPU to record.
#include "cuda/activity_recorder.h"

#include "tensor/error.h"

namespace brisk::cuda {

ActivityRecorder::~ActivityRecorder() = default;

void ActivityRecorder::start() {
  BRISK_FAIL("cuda::ActivityRecorder: this build of Brisk has no CUDA support (built without CUDA)");
}

GpuActivity ActivityRecorder::stop() { BRISK_FAIL("cuda::ActivityRecorder::stop: not started"); }

}  // namespace brisk::cuda
