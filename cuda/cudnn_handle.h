#pragma once
// The cuDNN handle of the calling thread for a device. A cudnnHandle_t must not serve two
// threads at once, so each thread gets its own per device, created on first use and set to
// the given stream on every call; when the thread ends its handles go back to a pool that
// later threads take from (creating a handle costs milliseconds and some device memory).
#include <cuda_runtime.h>
#include <cudnn.h>

namespace brisk::cuda {

// `device` must be the current device (a LaunchScope of it); the handle launches on `stream`.
cudnnHandle_t cudnn_handle(int device, cudaStream_t stream);

}  // namespace brisk::cuda
