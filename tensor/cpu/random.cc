// Random fills from the Philox stream. Element i of `out` uses counter offset + i, so the
// numbers do not depend on the thread count or on how work is split; the draws are the
// functors of tensor/functors/philox.h, shared with the CUDA backend.
#include "tensor/cpu/cpu_backend.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/philox.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

constexpr int64_t kGrain = 4096;

template <typename T, typename F>
void fill(const Tensor& out, uint64_t seed, uint64_t offset, const F& draw) {
  T* p = out.data_ptr<T>();
  parallel_for(0, out.numel(), kGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) p[i] = cast<T>(draw(philox4x32(seed, offset + static_cast<uint64_t>(i))));
  });
}

}  // namespace

void CpuBackend::random(RandomOp op, const Tensor& out, uint64_t seed, uint64_t offset, OpParams params) {
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
      break;
    case RandomOp::Normal:
      dispatch_floating(out.dtype(), "normal_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill<T>(out, seed, offset, NormalDoubleDraw{params.a, params.b});
        } else {
          fill<T>(out, seed, offset, NormalFloatDraw{static_cast<float>(params.a), static_cast<float>(params.b)});
        }
      });
      break;
    case RandomOp::Bernoulli:
      dispatch_all(out.dtype(), "bernoulli_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill<T>(out, seed, offset, BernoulliDraw{params.a});
      });
      break;
  }
}

}  // namespace brisk::cpu
