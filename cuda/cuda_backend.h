#pragma once
// The CUDA kernels. Each family lives in its own .cu file and runs the same functors as the
// CPU backend (tensor/functors/), so both compute one definition of every op:
//   - elementwise ops through one launch helper (cuda/loops.cu.h): a vectorized path for
//     contiguous aligned operands, an offset-calculator path for strided and broadcast ones;
//   - reductions block-per-output-row with warp shuffles, or split over blocks for long ones;
//   - softmax one row per thread group; matmul through cuBLAS; convolution through cuDNN;
//   - pooling one thread per element, with the CPU's per-element functions.
// Every kernel runs on the current stream of the tensors' device (cuda/stream.h) with that
// device made current, so work is stream-ordered and nothing synchronizes the host except
// copies to host memory.
//
// The backend registers itself at static initialization (cuda/register.cc), so linking
// //cuda:backend is all it takes to make "cuda" tensors computable.
#include "tensor/backend.h"

namespace brisk::cuda {

// Every method of Backend (tensor/backend.h) but the batch norm kernels, which
// nn::functional::batch_norm composes from other ops on CUDA. Each family in its own file:
// copy.cu, elementwise.cu (unary, binary, ternary), reduce.cu, softmax.cu, gemm.cc
// (batched_gemm), index.cu (index_select, gather, scatter_add), random.cu, conv.cc, pool.cu
// and optimizer_step.cu (sgd_step, adam_step, non_finite_check_and_unscale).
class CudaBackend final : public Backend {
 public:
  BRISK_BACKEND_COPY(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_CORE_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_CONV_POOL_KERNELS(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_OPTIMIZER_KERNELS(BRISK_BACKEND_OVERRIDE)
};

}  // namespace brisk::cuda
