#pragma once
// CUDA streams. Every kernel of the CUDA backend is launched on the current stream of the
// tensor's device, so work is stream-ordered: users switch streams with a StreamGuard.
#include <cuda_runtime.h>

namespace brisk::cuda {

// The stream the CUDA backend launches on for `device` (the legacy default stream until a
// guard sets another).
cudaStream_t current_stream(int device);
void set_current_stream(int device, cudaStream_t stream);

}  // namespace brisk::cuda
