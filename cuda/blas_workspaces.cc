#include "cuda/blas_workspaces.h"

namespace brisk::cuda {

size_t blas_workspace_size(int major) { return major >= 9 ? size_t{32} << 20 : size_t{4} << 20; }

void* BlasWorkspaces::get(int device, StreamRef stream, const Allocate& allocate) {
  std::lock_guard<std::mutex> lock(mutex_);
  Workspace& w = workspaces_[{device, stream.handle}];
  if (w.memory == nullptr || w.stream_id != stream.id) {
    // The workspace of a stream that had this handle before, whose last work may still use
    // it: the caching allocator hands it to no other stream, and gives it back to the device
    // only after synchronizing (cuda/caching_allocator.h, retire_stream).
    w.memory.reset();
    w.memory = allocate();
    w.stream_id = stream.id;
  }
  return w.memory.get();
}

}  // namespace brisk::cuda
