// CpuBackend::unary/binary/ternary: the shared dispatch of tensor/kernels/ over cpu_kernel.
#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/loops.h"
#include "tensor/kernels/elementwise_dispatch.h"

namespace brisk::cpu {
namespace {

struct CpuLoop {
  template <typename F, typename... Inputs>
  static void apply(const Tensor& out, const F& f, const Inputs&... inputs) {
    cpu_kernel(out, f, inputs...);
  }
};

}  // namespace

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  kernels::unary<CpuLoop>(op, out, in, p);
}

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  kernels::binary<CpuLoop>(op, out, a, b, p);
}

void CpuBackend::ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                         OpParams p) {
  kernels::ternary<CpuLoop>(op, out, a, b, c, p);
}

}  // namespace brisk::cpu
