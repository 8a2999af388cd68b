#pragma once
// The graph pools of each device's caching allocator (cuda/caching_allocator.h), for CUDA
// graphs (cuda/graph.cc): while a stream is captured its allocations come from `pool`.
#include <cuda_runtime.h>

#include <cstdint>

namespace brisk::cuda {

void begin_allocate_to_pool(int device, uint64_t pool, cudaStream_t stream);
void end_allocate_to_pool(int device, uint64_t pool);
void release_pool(int device, uint64_t pool);

}  // namespace brisk::cuda
