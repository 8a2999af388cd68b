#pragma once
// The real DeviceMemoryApi implementations, on the CUDA runtime.
#include <memory>

#include "cuda/device_memory_api.h"

namespace brisk::cuda {

// cudaMalloc/cudaFree/cudaMemGetInfo on `device`.
std::unique_ptr<DeviceMemoryApi> make_device_memory_api(int device);
// cudaHostAlloc/cudaFreeHost; mem_get_info reports the host's physical memory.
std::unique_ptr<DeviceMemoryApi> make_pinned_memory_api();

}  // namespace brisk::cuda
