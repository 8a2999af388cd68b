// CudaBackend::random: element i of the contiguous `out` is the draw functor picked by
// tensor/kernels/random_dispatch.h applied to Philox counter offset + i, exactly as on the
// CPU, so a CUDA tensor filled from a seed holds the CPU's numbers (uniform and bernoulli bit
// for bit; normal up to the last bits of each device's logf/cosf).
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/philox.h"
#include "tensor/kernels/random_dispatch.h"

namespace brisk::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T, typename Draw>
__global__ void __launch_bounds__(kThreads) fill_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, Draw draw) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = cast<T>(draw(philox4x32(seed, offset + static_cast<uint64_t>(i))));
  }
}

template <typename T, typename Draw>
void fill(const Tensor& out, uint64_t seed, uint64_t offset, Draw draw) {
  BRISK_CHECK(out.is_contiguous(), "random: expected a contiguous tensor, got {}", out.describe());
  if (out.numel() == 0) return;
  LaunchScope scope(out.device());
  // Ten Philox rounds per element make this compute-bound: a full grid of resident threads.
  unsigned blocks = grid_size(scope.device(), out.numel(), kThreads);
  fill_kernel<<<blocks, kThreads, 0, scope.stream()>>>(out.data_ptr<T>(), out.numel(), seed, offset, draw);
  BRISK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void CudaBackend::random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) {
  kernels::random(op, out.dtype(), params,
                  [&](auto tag, const auto& draw) { fill<typename decltype(tag)::type>(out, seed, offset, draw); });
}

}  // namespace brisk::cuda
