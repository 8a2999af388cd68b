#include "cuda/copy.h"

#include "cuda/error.h"
#include "cuda/pinned_allocator.h"

namespace brisk::cuda {

void copy_bytes(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind, cudaStream_t stream,
                bool non_blocking) {
  BRISK_CHECK(kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice,
              "copy_bytes: unsupported copy kind {}", static_cast<int>(kind));
  if (nbytes == 0) return;
  BRISK_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, stream));
  if (kind == cudaMemcpyDeviceToDevice) return;
  const void* host = kind == cudaMemcpyHostToDevice ? src : dst;
  if (non_blocking && is_pinned(host)) {
    record_pinned_use(host, stream);
    return;
  }
  BRISK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace brisk::cuda
