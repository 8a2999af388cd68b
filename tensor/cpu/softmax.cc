// CpuBackend::softmax and softmax_backward over contiguous tensors.
//
// A tensor seen as [outer, n, inner] is normalized along n. With inner == 1 each of the outer
// rows is contiguous and is handled on its own; otherwise blocks of neighbouring columns are
// processed together, so every pass reads memory in order. The forward subtracts the
// maximum before exp, so exp never overflows.
#include <cmath>
#include <limits>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/loops.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/math.h"
#include "tensor/functors/vec_math.h"
#include "tensor/kernels/reduce_dispatch.h"

namespace brisk::cpu {
namespace {

constexpr int64_t kColumnBlock = 64;

struct SoftmaxGeometry {
  int64_t outer = 1, n = 1, inner = 1;
};

SoftmaxGeometry geometry(const Tensor& t, int64_t dim) {
  SoftmaxGeometry g;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) g.outer *= t.sizes()[d];
    if (d == dim) g.n = t.sizes()[d];
    if (d > dim) g.inner *= t.sizes()[d];
  }
  return g;
}

// Sums accumulate as the CPU's reductions do (tensor/kernels/reduce_dispatch.h).
template <typename T>
using sum_t = kernels::accumulate_t<T, true>;

// Runs row(offset) on each contiguous row when inner == 1, else columns(width, offset) on each
// block of up to kColumnBlock neighbouring columns, in parallel; offset is the element offset
// of the row, or of the block's first column, at position 0 along the softmax dim.
template <typename Row, typename Columns>
void for_each_slice(const SoftmaxGeometry& g, const Row& row, const Columns& columns) {
  if (g.inner == 1) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.n));
    parallel_for(0, g.outer, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) row(r * g.n);
    });
    return;
  }
  int64_t blocks_per_outer = (g.inner + kColumnBlock - 1) / kColumnBlock;
  int64_t blocks = g.outer * blocks_per_outer;
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.n * std::min(g.inner, kColumnBlock)));
  parallel_for(0, blocks, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t o = b / blocks_per_outer, j0 = (b % blocks_per_outer) * kColumnBlock;
      columns(std::min(kColumnBlock, g.inner - j0), o * g.n * g.inner + j0);
    }
  });
}

// The largest element of a contiguous row; NaN if any element is NaN.
template <typename T>
opmath_t<T> row_max(const T* x, int64_t n) {
  using C = opmath_t<T>;
  C m = -std::numeric_limits<C>::infinity();
  bool nan = false;
#pragma omp simd reduction(max : m) reduction(|| : nan)
  for (int64_t i = 0; i < n; ++i) {
    C v = static_cast<C>(x[i]);
    m = v > m ? v : m;
    nan = nan || v != v;
  }
  return nan ? std::numeric_limits<C>::quiet_NaN() : m;
}

// One contiguous row (inner == 1).
template <bool kLog, typename T>
void softmax_row(T* y, const T* x, int64_t n) {
  using C = opmath_t<T>;
  using S = sum_t<T>;
  C max = row_max(x, n);
  S sum = 0;
  if constexpr (kLog) {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += static_cast<S>(vexp(static_cast<C>(x[i]) - max));
    auto log_sum = static_cast<C>(std::log(sum));
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = cast<T>(static_cast<C>(x[i]) - max - log_sum);
  } else if constexpr (is_reduced_float_v<T>) {
    // exp twice rather than storing it rounded to 16 bits between the passes.
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += static_cast<S>(vexp(static_cast<C>(x[i]) - max));
    auto scale = static_cast<C>(S(1) / sum);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = cast<T>(vexp(static_cast<C>(x[i]) - max) * scale);
  } else {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) {
      C e = vexp(x[i] - max);
      sum += static_cast<S>(e);
      y[i] = e;
    }
    auto scale = static_cast<C>(S(1) / sum);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] * scale;
  }
}

// `width` neighbouring columns (inner > 1), `stride` elements apart along the softmax dim.
template <bool kLog, typename T>
void softmax_columns(T* y, const T* x, int64_t n, int64_t stride, int64_t width) {
  using C = opmath_t<T>;
  using S = sum_t<T>;
  C max[kColumnBlock];
  S sum[kColumnBlock];
  for (int64_t j = 0; j < width; ++j) {
    max[j] = -std::numeric_limits<C>::infinity();
    sum[j] = S(0);
  }
  for (int64_t k = 0; k < n; ++k) {
    const T* in = x + k * stride;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) max[j] = maximum_propagate_nan(max[j], static_cast<C>(in[j]));
  }
  for (int64_t k = 0; k < n; ++k) {
    const T* in = x + k * stride;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) sum[j] += static_cast<S>(vexp(static_cast<C>(in[j]) - max[j]));
  }
  C post[kColumnBlock];  // log(sum) or 1 / sum
  for (int64_t j = 0; j < width; ++j) post[j] = static_cast<C>(kLog ? std::log(sum[j]) : S(1) / sum[j]);
  for (int64_t k = 0; k < n; ++k) {
    const T* in = x + k * stride;
    T* out = y + k * stride;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) {
      C shifted = static_cast<C>(in[j]) - max[j];
      if constexpr (kLog) {
        out[j] = cast<T>(shifted - post[j]);
      } else {
        out[j] = cast<T>(vexp(shifted) * post[j]);
      }
    }
  }
}

template <bool kLog, typename T>
void softmax_forward(T* y, const T* x, const SoftmaxGeometry& g) {
  for_each_slice(
      g, [&](int64_t base) { softmax_row<kLog>(y + base, x + base, g.n); },
      [&](int64_t width, int64_t base) { softmax_columns<kLog>(y + base, x + base, g.n, g.inner, width); });
}

// softmax:     grad_in = y * (grad_out - sum(grad_out * y))
// log_softmax: grad_in = grad_out - exp(y) * sum(grad_out)
template <bool kLog, typename T>
BRISK_INLINE opmath_t<T> backward_term(T go, T y) {
  using C = opmath_t<T>;
  return kLog ? static_cast<C>(go) : static_cast<C>(go) * static_cast<C>(y);
}

template <bool kLog, typename T>
BRISK_INLINE T backward_value(T go, T y, opmath_t<T> total) {
  using C = opmath_t<T>;
  C g = static_cast<C>(go), v = static_cast<C>(y);
  if constexpr (kLog) {
    return cast<T>(g - vexp(v) * total);
  } else {
    return cast<T>(v * (g - total));
  }
}

template <bool kLog, typename T>
void backward_row(T* gi, const T* go, const T* y, int64_t n) {
  sum_t<T> sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += backward_term<kLog>(go[i], y[i]);
  auto total = static_cast<opmath_t<T>>(sum);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) gi[i] = backward_value<kLog>(go[i], y[i], total);
}

template <bool kLog, typename T>
void backward_columns(T* gi, const T* go, const T* y, int64_t n, int64_t stride, int64_t width) {
  sum_t<T> sum[kColumnBlock];
  for (int64_t j = 0; j < width; ++j) sum[j] = 0;
  for (int64_t k = 0; k < n; ++k) {
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) sum[j] += backward_term<kLog>(go[k * stride + j], y[k * stride + j]);
  }
  opmath_t<T> total[kColumnBlock];
  for (int64_t j = 0; j < width; ++j) total[j] = static_cast<opmath_t<T>>(sum[j]);
  for (int64_t k = 0; k < n; ++k) {
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) {
      int64_t i = k * stride + j;
      gi[i] = backward_value<kLog>(go[i], y[i], total[j]);
    }
  }
}

template <bool kLog, typename T>
void softmax_backward_impl(T* gi, const T* go, const T* y, const SoftmaxGeometry& g) {
  for_each_slice(
      g, [&](int64_t base) { backward_row<kLog>(gi + base, go + base, y + base, g.n); },
      [&](int64_t width, int64_t base) {
        backward_columns<kLog>(gi + base, go + base, y + base, g.n, g.inner, width);
      });
}

void check_contiguous(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    BRISK_CHECK(t->is_contiguous(), "{}: expected contiguous tensors, got {}", op, t->describe());
}

}  // namespace

void CpuBackend::softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  check_contiguous(name, {&out, &in});
  if (in.numel() == 0) return;
  SoftmaxGeometry g = geometry(in, dim);
  dispatch_floating(in.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (log) {
      softmax_forward<true>(out.data_ptr<T>(), in.data_ptr<T>(), g);
    } else {
      softmax_forward<false>(out.data_ptr<T>(), in.data_ptr<T>(), g);
    }
  });
}

void CpuBackend::softmax_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim,
                                  bool log) {
  const char* name = log ? "log_softmax_backward" : "softmax_backward";
  check_contiguous(name, {&grad_in, &grad_out, &out});
  if (out.numel() == 0) return;
  SoftmaxGeometry g = geometry(out, dim);
  dispatch_floating(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* gi = grad_in.data_ptr<T>();
    if (log) {
      softmax_backward_impl<true>(gi, grad_out.data_ptr<T>(), out.data_ptr<T>(), g);
    } else {
      softmax_backward_impl<false>(gi, grad_out.data_ptr<T>(), out.data_ptr<T>(), g);
    }
  });
}

}  // namespace brisk::cpu
