#pragma once
// cuBLAS settings of the CUDA backend's matrix products.
#include <cublas_v2.h>

#include <mutex>

namespace brisk::cuda {

// Whether float32 matrix products may run on the tensor cores in TF32 (10-bit mantissa
// inputs, float32 accumulation): several times faster, about 1e-3 relative error. Off by
// default, as torch.backends.cuda.matmul.allow_tf32.
void set_allow_tf32(bool allow);
bool allow_tf32();

// The cuBLAS handle of `device` (one per device, created on first use) for the life of this
// object, set to launch on `stream` with the stream's own workspace (cuda/blas_workspaces.h).
// It holds the device's lock meanwhile: a handle must not serve two threads at once.
// `device` must be the current device (a LaunchScope of it).
class BlasHandle {
 public:
  BlasHandle(int device, cudaStream_t stream);
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  std::unique_lock<std::mutex> lock_;
  cublasHandle_t handle_;
};

}  // namespace brisk::cuda
