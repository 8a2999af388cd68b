#include "cuda/profiler_capture.h"

#include <cuda_profiler_api.h>

#include "cuda/error.h"

namespace brisk::cuda {

void profiler_start() { BRISK_CUDA_CHECK(cudaProfilerStart()); }
void profiler_stop() { BRISK_CUDA_CHECK(cudaProfilerStop()); }

}  // namespace brisk::cuda
