// CudaBackend::softmax / softmax_backward over contiguous tensors, seen as [outer, n, inner]
// and normalized along n: each row by one group of threads, a fold of the row (Forward:
// SoftmaxRowFold of cuda/softmax_row.h; Backward: a sum) then a pass writing every element
// (docs/cuda_kernels.md, "Softmax").
#include <algorithm>

#include "cuda/block_reduce.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "cuda/softmax_row.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"

namespace brisk::cuda {
namespace {

constexpr int kThreads = 512;
constexpr int kMaxColumns = 32;
constexpr int kVecBytes = 16;

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) Packed {
  T v[kVec];
};

template <typename T, int kVec>
__device__ __forceinline__ Packed<T, kVec> load(const T* p, int64_t i) {
  return *reinterpret_cast<const Packed<T, kVec>*>(p + i);
}

template <typename T, int kVec>
__device__ __forceinline__ void store(T* p, int64_t i, const Packed<T, kVec>& v) {
  *reinterpret_cast<Packed<T, kVec>*>(p + i) = v;
}

template <typename T>
struct Forward {
  using C = opmath_t<T>;
  using Acc = SoftmaxRowStats<C>;
  const T* x;
  T* y;
  bool log;

  __device__ Acc identity() const { return SoftmaxRowFold<C>().identity(); }
  __device__ Acc combine(const Acc& a, const Acc& b) const { return SoftmaxRowFold<C>().combine(a, b); }
  template <int kVec>
  __device__ Acc fold(Acc acc, int64_t i) const {
    SoftmaxRowFold<C> row;
    if constexpr (kVec == 1) {
      return row.reduce(acc, static_cast<C>(x[i]));
    } else {
      Packed<T, kVec> v = load<T, kVec>(x, i);
#pragma unroll
      for (int j = 0; j < kVec; ++j) acc = row.reduce(acc, static_cast<C>(v.v[j]));
      return acc;
    }
  }
  using Row = SoftmaxRowOutput<C>;
  __device__ Row finish(const Acc& total) const { return softmax_row_output(total, log); }
  __device__ T value(T xi, const Row& r) const { return cast<T>(r(static_cast<C>(xi))); }
  template <int kVec>
  __device__ void write(int64_t i, const Row& r) const {
    if constexpr (kVec == 1) {
      y[i] = value(x[i], r);
    } else {
      Packed<T, kVec> v = load<T, kVec>(x, i);
#pragma unroll
      for (int j = 0; j < kVec; ++j) v.v[j] = value(v.v[j], r);
      store<T, kVec>(y, i, v);
    }
  }
};

template <typename T>
struct Backward {
  using C = opmath_t<T>;
  using Acc = C;
  const T* grad_out;
  const T* y;
  T* grad_in;
  bool log;

  __device__ Acc identity() const { return C(0); }
  __device__ Acc combine(const Acc& a, const Acc& b) const { return a + b; }
  __device__ C term(T go, T yi) const { return log ? static_cast<C>(go) : static_cast<C>(go) * static_cast<C>(yi); }
  template <int kVec>
  __device__ Acc fold(Acc acc, int64_t i) const {
    if constexpr (kVec == 1) {
      return acc + term(grad_out[i], y[i]);
    } else {
      Packed<T, kVec> g = load<T, kVec>(grad_out, i), v = load<T, kVec>(y, i);
#pragma unroll
      for (int j = 0; j < kVec; ++j) acc += term(g.v[j], v.v[j]);
      return acc;
    }
  }
  using Row = C;
  __device__ Row finish(const Acc& total) const { return total; }
  __device__ T value(T go, T yi, C total) const {
    C g = static_cast<C>(go), v = static_cast<C>(yi);
    return cast<T>(log ? g - std::exp(v) * total : v * (g - total));
  }
  template <int kVec>
  __device__ void write(int64_t i, const Row& total) const {
    if constexpr (kVec == 1) {
      grad_in[i] = value(grad_out[i], y[i], total);
    } else {
      Packed<T, kVec> g = load<T, kVec>(grad_out, i), v = load<T, kVec>(y, i);
#pragma unroll
      for (int j = 0; j < kVec; ++j) g.v[j] = value(g.v[j], v.v[j], total);
      store<T, kVec>(grad_in, i, g);
    }
  }
};

// Rows of n contiguous elements; a group of blockDim.x threads per row, blockDim.y rows per
// block. The passes' fold<kVec>(acc, i) and write<kVec>(i, row) take elements i..i+kVec-1.
template <int kVec, typename Pass>
__global__ void __launch_bounds__(kThreads) last_dim_kernel(Pass pass, int64_t rows, int64_t n) {
  using Acc = typename Pass::Acc;
  __shared__ Acc shared[kThreads];
  int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  bool active = row < rows;
  int64_t base = row * n;
  int64_t vec_end = n / kVec * kVec;
  int64_t step = static_cast<int64_t>(blockDim.x) * kVec;
  Acc acc = pass.identity();
  if (active) {
    for (int64_t i = threadIdx.x * kVec; i < vec_end; i += step) acc = pass.template fold<kVec>(acc, base + i);
    for (int64_t i = vec_end + threadIdx.x; i < n; i += blockDim.x) acc = pass.template fold<1>(acc, base + i);
  }
  auto combine = [&pass](const Acc& a, const Acc& b) { return pass.combine(a, b); };
  Acc total = group_all_reduce_x(acc, combine, shared);
  if (!active) return;
  auto r = pass.finish(total);
  for (int64_t i = threadIdx.x * kVec; i < vec_end; i += step) pass.template write<kVec>(base + i, r);
  for (int64_t i = vec_end + threadIdx.x; i < n; i += blockDim.x) pass.template write<1>(base + i, r);
}

// Columns of n elements `inner` apart: blockDim.x neighbouring columns per block, the
// blockDim.y lanes of a column splitting its elements.
template <typename Pass>
__global__ void __launch_bounds__(kThreads) strided_dim_kernel(Pass pass, int64_t columns, int64_t n, int64_t inner) {
  using Acc = typename Pass::Acc;
  __shared__ Acc shared[kThreads];
  int64_t column = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool active = column < columns;
  int64_t base = active ? column / inner * n * inner + column % inner : 0;
  Acc acc = pass.identity();
  if (active) {
    for (int64_t k = threadIdx.y; k < n; k += blockDim.y) acc = pass.template fold<1>(acc, base + k * inner);
  }
  auto combine = [&pass](const Acc& a, const Acc& b) { return pass.combine(a, b); };
  Acc total = group_reduce_y(acc, combine, shared);
  if (!active) return;
  auto r = pass.finish(total);
  for (int64_t k = threadIdx.y; k < n; k += blockDim.y) pass.template write<1>(base + k * inner, r);
}

bool aligned(const void* p, int64_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

struct Geometry {
  int64_t outer = 1, n = 1, inner = 1;
};

Geometry geometry(const Tensor& t, int64_t dim) {
  Geometry g;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) g.outer *= t.sizes()[d];
    if (d == dim) g.n = t.sizes()[d];
    if (d > dim) g.inner *= t.sizes()[d];
  }
  return g;
}

// Runs `pass` over every row; `pointers` are the tensors it reads and writes, which decide
// whether rows can be loaded 16 bytes at a time.
template <typename T, typename Pass>
void launch(const Pass& pass, const Geometry& g, std::initializer_list<const void*> pointers, Device device) {
  LaunchScope scope(device);
  if (g.inner == 1) {
    constexpr int kVec = kVecBytes / static_cast<int>(sizeof(T));
    bool vectorize = (g.n * static_cast<int64_t>(sizeof(T))) % kVecBytes == 0;
    for (const void* p : pointers) vectorize = vectorize && aligned(p, kVecBytes);
    int64_t per_thread = vectorize ? kVec : 1;
    int64_t lanes = std::min<int64_t>(kThreads, next_pow2((g.n + per_thread - 1) / per_thread));
    dim3 block(static_cast<unsigned>(lanes), static_cast<unsigned>(kThreads / lanes));
    auto blocks = static_cast<unsigned>((g.outer + block.y - 1) / block.y);
    if (vectorize) {
      last_dim_kernel<kVec><<<blocks, block, 0, scope.stream()>>>(pass, g.outer, g.n);
    } else {
      last_dim_kernel<1><<<blocks, block, 0, scope.stream()>>>(pass, g.outer, g.n);
    }
  } else {
    int64_t columns = g.outer * g.inner;
    int64_t width = std::min<int64_t>(kMaxColumns, next_pow2(g.inner));
    int64_t lanes = std::min<int64_t>(kThreads / width, next_pow2(g.n));
    dim3 block(static_cast<unsigned>(width), static_cast<unsigned>(lanes));
    auto blocks = static_cast<unsigned>((columns + width - 1) / width);
    strided_dim_kernel<<<blocks, block, 0, scope.stream()>>>(pass, columns, g.n, g.inner);
  }
  BRISK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void CudaBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  check_contiguous(name, {&out, &in});
  if (in.numel() == 0) return;
  Geometry g = geometry(in, dim);
  dispatch_floating(in.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Forward<T> pass{in.data_ptr<T>(), out.data_ptr<T>(), log};
    launch<T>(pass, g, {pass.x, pass.y}, in.device());
  });
}

void CudaBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                                   bool log) {
  const char* name = log ? "log_softmax_backward" : "softmax_backward";
  check_contiguous(name, {&grad_in, &grad_out, &out});
  if (out.numel() == 0) return;
  Geometry g = geometry(out, dim);
  dispatch_floating(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Backward<T> pass{grad_out.data_ptr<T>(), out.data_ptr<T>(), grad_in.data_ptr<T>(), log};
    launch<T>(pass, g, {pass.grad_out, pass.y, pass.grad_in}, out.device());
  });
}

}  // namespace brisk::cuda
