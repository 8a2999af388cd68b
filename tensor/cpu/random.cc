// Random fills from the Philox stream. Element i of `out` uses counter offset + i, so the
// numbers do not depend on the thread count or on how work is split; the draws are the
// functors of tensor/functors/philox.h, picked by tensor/kernels/random_dispatch.h for both
// backends.
#include "tensor/cpu/cpu_backend.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/philox.h"
#include "tensor/kernels/random_dispatch.h"
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
  kernels::random(op, out.dtype(), params,
                  [&](auto tag, const auto& draw) { fill<typename decltype(tag)::type>(out, seed, offset, draw); });
}

}  // namespace brisk::cpu
