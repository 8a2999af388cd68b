#pragma once
// The CPU kernels. Elementwise and reduction kernels run the shared functors of
// tensor/functors/ through the loops of tensor/cpu/loops.h; matmul goes through Eigen.
// Work splits over OpenMP threads only above a grain size, so tiny tensors pay nothing.
#include "tensor/backend.h"

namespace brisk::cpu {

// Every method of Backend (tensor/backend.h), each family in its own file: copy.cc,
// elementwise.cc (unary, binary, ternary), reduce.cc, softmax.cc, gemm.cc (batched_gemm),
// index.cc (index_select, gather, scatter_add), random.cc, conv.cc, pool.cc, batch_norm.cc
// and optimizer_step.cc (sgd_step, adam_step, non_finite_check_and_unscale and their
// multi-tensor forms).
class CpuBackend final : public Backend {
 public:
  BRISK_BACKEND_METHODS(BRISK_BACKEND_OVERRIDE)
  bool has_batch_norm() const override { return true; }
};

}  // namespace brisk::cpu
