#pragma once
// What pinning batches needs from the GPU runtime: CUDA's (data/pin_memory_cuda.cc) in a build
// with CUDA; in a build without it, one that only says why there is none
// (data/pin_memory_cpu.cc). Tests put a fake in its place (set_pinned_memory_runtime) to check,
// without a GPU, which device the DataLoader's threads pin on.
#include <string>

#include "tensor/tensor.h"

namespace brisk::data {

class PinnedMemoryRuntime {
 public:
  virtual ~PinnedMemoryRuntime() = default;
  // Empty when pinned memory can be had; else why not.
  virtual std::string unavailable_reason() const = 0;
  // The calling thread's current CUDA device: pinned memory is allocated in its context.
  virtual int current_device() const = 0;
  virtual void set_device(int device) = 0;
  // A contiguous copy of the CPU tensor in pinned memory (the tensor itself if pinned already).
  virtual Tensor pin(const Tensor& tensor) = 0;
};

// The runtime in use.
PinnedMemoryRuntime& pinned_memory_runtime();
// Replaces the runtime in use (nullptr: the build's own) and returns the previous one. For
// tests: do not call while batches are being pinned.
PinnedMemoryRuntime* set_pinned_memory_runtime(PinnedMemoryRuntime* runtime);
// The build's own: CUDA's, or the one that explains there is no CUDA.
PinnedMemoryRuntime& builtin_pinned_memory_runtime();

}  // namespace brisk::data
