#pragma once
// The workspaces of cuBLAS, one per (device, stream), so that products queued on two streams
// never share one (docs/cuda_kernels.md, "Matrix products through cuBLAS"). The caller sets it
// with cublasSetWorkspace after cublasSetStream, which resets the handle to its default one.
// A new stream that CUDA gives a destroyed stream's handle (cuda/stream_registry.h) gets a new
// workspace; at most one is kept per handle. Free of CUDA headers, so tested on any machine.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "cuda/device_memory_api.h"

namespace brisk::cuda {

// cuBLAS's recommended workspace for a device of compute capability `major`.x: 32 MiB on
// Hopper and later, 4 MiB before.
size_t blas_workspace_size(int major);

class BlasWorkspaces {
 public:
  // A new workspace (of the device's size), usable by work on the stream being served, held
  // until the last copy of the pointer goes.
  using Allocate = std::function<std::shared_ptr<void>()>;

  // The workspace of work queued on `stream` of `device`: the one of an earlier call for the
  // same stream, else a new one from allocate(). Thread-safe.
  void* get(int device, StreamRef stream, const Allocate& allocate);

 private:
  struct Workspace {
    uint64_t stream_id = 0;
    std::shared_ptr<void> memory;
  };
  std::mutex mutex_;
  std::map<std::pair<int, StreamHandle>, Workspace> workspaces_;
};

}  // namespace brisk::cuda
