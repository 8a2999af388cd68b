// CudaBackend::unary/binary/ternary: the shared dispatch of tensor/kernels/ over gpu_kernel
// (cuda/loops.cu.h), so both devices accept and refuse the same calls and run the same
// functors. bfloat16/float16 load as 16 bits, compute in float and round back on store.
#include "cuda/cuda_backend.h"
#include "cuda/loops.cu.h"
#include "tensor/kernels/elementwise_dispatch.h"

namespace brisk::cuda {
namespace {

struct CudaLoop {
  template <typename F, typename... Inputs>
  static void apply(const Tensor& out, const F& f, const Inputs&... inputs) {
    gpu_kernel(out, f, inputs...);
  }
};

}  // namespace

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  kernels::unary<CudaLoop>(op, out, in, p);
}

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  kernels::binary<CudaLoop>(op, out, a, b, p);
}

void CudaBackend::ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                          OpParams p) {
  kernels::ternary<CudaLoop>(op, out, a, b, c, p);
}

}  // namespace brisk::cuda
