// CudaBackend::random: element i of the contiguous `out` is the draw functor
// (tensor/functors/philox.h) applied to Philox counter offset + i, exactly as on the CPU, so
// a CUDA tensor filled from a seed holds the CPU's numbers (uniform and bernoulli bit for
// bit; normal up to the last bits of each device's logf/cosf).
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/philox.h"

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
  switch (op) {
    case RandomOp::Uniform:
      dispatch_floating(out.dtype(), "uniform_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill<T>(out, seed, offset, UniformDoubleDraw{params.a, params.b - params.a});
        } else {
          fill<T>(out, seed, offset,
                  UniformFloatDraw{static_cast<float>(params.a), static_cast<float>(params.b - params.a)});
        }
      });
      return;
    case RandomOp::Normal:
      dispatch_floating(out.dtype(), "normal_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill<T>(out, seed, offset, NormalDoubleDraw{params.a, params.b});
        } else {
          fill<T>(out, seed, offset, NormalFloatDraw{static_cast<float>(params.a), static_cast<float>(params.b)});
        }
      });
      return;
    case RandomOp::Bernoulli:
      dispatch_all(out.dtype(), "bernoulli_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill<T>(out, seed, offset, BernoulliDraw{params.a});
      });
      return;
  }
  BRISK_FAIL("random: no CUDA kernel for op {}", static_cast<int>(op));
}

}  // namespace brisk::cuda
