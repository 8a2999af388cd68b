// Random fills from the Philox stream. Element i of `out` uses counter offset + i, so the
// numbers do not depend on the thread count or on how work is split.
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
          fill<T>(out, seed, offset, [&](const Philox4x32& r) {
            return params.a + (params.b - params.a) * uniform_double(r.v[0], r.v[1]);
          });
        } else {
          auto from = static_cast<float>(params.a), range = static_cast<float>(params.b - params.a);
          fill<T>(out, seed, offset, [=](const Philox4x32& r) { return from + range * uniform_float(r.v[0]); });
        }
      });
      break;
    case RandomOp::Normal:
      dispatch_floating(out.dtype(), "normal_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, double>) {
          fill<T>(out, seed, offset, [&](const Philox4x32& r) { return params.a + params.b * normal_double(r); });
        } else {
          auto mean = static_cast<float>(params.a), std = static_cast<float>(params.b);
          fill<T>(out, seed, offset, [=](const Philox4x32& r) { return mean + std * normal_float(r); });
        }
      });
      break;
    case RandomOp::Bernoulli:
      dispatch_all(out.dtype(), "bernoulli_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        double p = params.a;
        fill<T>(out, seed, offset, [=](const Philox4x32& r) { return uniform_double(r.v[0], r.v[1]) < p ? 1 : 0; });
      });
      break;
  }
}

}  // namespace brisk::cpu
