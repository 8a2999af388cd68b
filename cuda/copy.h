#pragma once
// The byte copies behind Backend::copy between host and device memory: cudaMemcpyAsync on a
// stream, made safe for the host memory involved.
#include <cuda_runtime.h>

#include <cstddef>

namespace brisk::cuda {

// Copies `nbytes` from `src` to `dst` in the order of `stream` (which must belong to the
// current device). `kind` is cudaMemcpyHostToDevice, DeviceToHost or DeviceToDevice.
//
// Host<->device: returns after the copy has finished, unless `non_blocking` and the host side
// is pinned; then it returns at once, and the host memory must not be touched until `stream`
// has reached the copy. (A non-blocking copy from pageable memory could still be reading it
// after return, or leave it unwritten; so it waits.) Pinned memory from Brisk's allocator is
// kept from reuse until then automatically.
// Device->device: stream-ordered, never waits.
void copy_bytes(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind, cudaStream_t stream, bool non_blocking);

}  // namespace brisk::cuda
