#include "cuda/cudnn_handle.h"

#include <array>
#include <mutex>
#include <vector>

#include "cuda/error.h"

namespace brisk::cuda {
namespace {

constexpr int kMaxDevices = 64;

// Handles of threads that have ended, per device. Never destroyed: handles die with the
// process, after the CUDA runtime may be gone.
struct Pool {
  std::mutex mutex;
  std::array<std::vector<cudnnHandle_t>, kMaxDevices> free;
};

Pool& pool() {
  static auto* p = new Pool();
  return *p;
}

// The calling thread's handles; returned to the pool when the thread ends.
struct ThreadHandles {
  std::array<cudnnHandle_t, kMaxDevices> handles{};
  ~ThreadHandles() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
      if (handles[d] != nullptr) p.free[d].push_back(handles[d]);
    }
  }
};

cudnnHandle_t acquire(int device) {
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.free[device].empty()) {
      cudnnHandle_t handle = p.free[device].back();
      p.free[device].pop_back();
      return handle;
    }
  }
  cudnnHandle_t handle = nullptr;
  BRISK_CUDNN_CHECK(cudnnCreate(&handle));
  return handle;
}

}  // namespace

cudnnHandle_t cudnn_handle(int device, cudaStream_t stream) {
  BRISK_CHECK(device >= 0 && device < kMaxDevices, "cuDNN: device index {} out of range [0, {})", device, kMaxDevices);
  thread_local ThreadHandles mine;
  cudnnHandle_t& handle = mine.handles[device];
  if (handle == nullptr) handle = acquire(device);
  BRISK_CUDNN_CHECK(cudnnSetStream(handle, stream));
  return handle;
}

}  // namespace brisk::cuda
