#pragma once
// The CUDA kernels. They run the same functors as the CPU backend (tensor/functors/), so both
// compute one definition of every op; each family's file and its choices:
// docs/cuda_kernels.md. Every kernel runs on the current stream of the tensors' device
// (cuda/stream.h) with that device made current, so work is stream-ordered and nothing
// synchronizes the host except copies to host memory.
//
// The backend registers itself at static initialization (cuda/register.cc), so linking
// //cuda:backend is all it takes to make "cuda" tensors computable.
#include "tensor/backend.h"

namespace brisk::cuda {

// Every method of Backend (tensor/backend.h).
class CudaBackend final : public Backend {
 public:
  BRISK_BACKEND_COPY(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_CORE_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_CONV_POOL_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_BATCH_NORM_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_OPTIMIZER_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_LOSS_KERNELS(BRISK_BACKEND_OVERRIDE)
  bool has_batch_norm() const override { return true; }
};

}  // namespace brisk::cuda
