#pragma once
// Holds back all work queued on a stream after it until open(), so a test can know for sure
// that the stream is still busy (instead of hoping some slow work has not finished yet).
#include <cuda_runtime.h>

#include <atomic>
#include <thread>

#include "cuda/error.h"

namespace brisk::cuda::testing {

class StreamGate {
 public:
  explicit StreamGate(cudaStream_t stream) { BRISK_CUDA_CHECK(cudaLaunchHostFunc(stream, &hold, this)); }
  // Opens the gate and waits until the stream has let go of this object.
  ~StreamGate() {
    open();
    while (!released_.load()) std::this_thread::yield();
  }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  void open() { open_.store(true); }

 private:
  // Runs on CUDA's callback thread, in stream order; must not call CUDA.
  static void CUDART_CB hold(void* self) {
    auto* gate = static_cast<StreamGate*>(self);
    while (!gate->open_.load()) std::this_thread::yield();
    gate->released_.store(true);
  }

  std::atomic<bool> open_{false};
  std::atomic<bool> released_{false};
};

}  // namespace brisk::cuda::testing
