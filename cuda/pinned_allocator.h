#pragma once
// Pinned (page-locked) host memory. The GPU reads and writes it directly, so copies from and
// to it are faster than from pageable memory and can run asynchronously (non_blocking=true)
// while the host goes on. Served by a HostCachingAllocator (cuda/host_caching_allocator.h).
#include <cuda_runtime.h>

#include "tensor/allocator.h"
#include "tensor/memory_stats.h"
#include "tensor/tensor.h"

namespace brisk::cuda {

// Host memory from the pinned cache, also registered as the tensor library's pinned allocator
// of CUDA (pinned_allocator_for in tensor/allocator.h). allocate(nbytes, cuda_device(i))
// allocates in device i's context, allocate(nbytes, kCPU) in the current device's; raises
// brisk::Error when CUDA cannot be used, saying why.
Allocator* pinned_allocator();
// A contiguous copy of the CPU tensor `tensor` in pinned memory; `tensor` itself if it is
// pinned already. The copy does not record autograd history.
Tensor pin_memory(const Tensor& tensor);
// True when the tensor's (CPU) memory is pinned: by Brisk or by anyone else through CUDA.
bool is_pinned(const Tensor& tensor);
bool is_pinned(const void* ptr);
// Work just queued on `stream` (an asynchronous copy) uses the pinned memory at `ptr`: when
// its tensor is freed, the memory is reused only after that work has finished. Returns
// false when `ptr` is not from pinned_allocator() (the caller must then wait for the copy).
bool record_pinned_use(const void* ptr, cudaStream_t stream);
MemoryStats pinned_memory_stats();
// Frees the cached pinned memory no tensor uses.
void empty_pinned_cache();

}  // namespace brisk::cuda
