#pragma once
// The memory of CUDA tensors. Every CUDA tensor's storage comes from one caching allocator
// per device (cuda/caching_allocator.h), registered with the tensor library when //cuda is
// linked in; these functions inspect and steer it, like torch.cuda's memory functions.
#include <cuda_runtime.h>

#include "tensor/memory_stats.h"
#include "tensor/tensor.h"

namespace brisk::cuda {

MemoryStats memory_stats(int device);
// Of the current device.
MemoryStats memory_stats();
// Returns the cached memory no tensor uses, on every device, to the driver, so other
// processes (or other libraries) can have it. Brisk itself does not need this: it empties
// the cache by itself before reporting out of memory.
void empty_cache();
// Starts the peak_* counters afresh from the current values.
void reset_peak_memory_stats(int device);
void reset_peak_memory_stats();
// Declares that work queued on `stream` (other than the stream the tensor was allocated on)
// uses `tensor`'s memory. Without it, once the tensor is freed its memory could be handed
// to new work on the allocating stream while `stream` still reads or writes it; with it,
// the memory is reused only after the work queued on `stream` at the time of the free has
// finished. Like torch.Tensor.record_stream. A cuda::Stream may be destroyed before the
// tensor is freed (see retire_stream); a stream made with the CUDA runtime directly must be
// retired before it is destroyed.
void record_stream(const Tensor& tensor, cudaStream_t stream);
// Before a stream is destroyed: makes the caching allocators forget it without waiting for
// its work. Memory it used (record_stream) waits for an event recorded on it now instead, so
// freeing that memory later records nothing on a dead stream; a new stream that CUDA gives
// the same handle starts with none of its cached memory. cuda::Stream's destructor calls
// this; call it before cudaStreamDestroy on a stream you created yourself and used with Brisk
// tensors. Never throws: a failure is reported on stderr, and the memory concerned is then
// kept from reuse for good.
void retire_stream(cudaStream_t stream) noexcept;

}  // namespace brisk::cuda
