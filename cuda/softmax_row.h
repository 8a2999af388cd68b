#pragma once
// What a softmax row is normalized by, folded in one pass: the CUDA backend's softmax kernels
// (cuda/softmax.cu) fold each row with SoftmaxRowFold across threads, then write every element
// with softmax_row_output. The CPU backend (tensor/cpu/softmax.cc) computes the same
// statistics in two passes: m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), and
// y = exp(x - m) / s, or x - m - log(s) for log_softmax. The fold keeps (largest element so
// far, sum of exp(x - that)) and rescales the sum when the maximum grows, so rows that are not
// finite come out as on the CPU (and in PyTorch):
//   - a NaN anywhere: m is NaN, every output NaN;
//   - +inf anywhere: m = +inf, and the CPU's sum holds exp(inf - inf) = NaN, so every output
//     is NaN (logsumexp's fold, LogSumExpReduce, keeps sum 1 there, which is right for
//     logsumexp, inf, but would make softmax [NaN, 0, 0, ...]);
//   - only -inf: m = -inf and x - m = NaN for every element, so every output is NaN;
//   - -inf among finite values: exp(-inf - m) = 0, the output 0 (log_softmax: -inf).
// Host and device code (BRISK_INLINE), so tests/cuda/softmax_row_test checks it on the CPU.
#include <cmath>
#include <limits>

#include "tensor/functors/math.h"
#include "tensor/functors/vec_math.h"
#include "tensor/macros.h"

namespace brisk::cuda {

template <typename C>
struct SoftmaxRowStats {
  C max;  // the largest element so far: -inf for none (or only -inf), NaN once a NaN was seen
  C sum;  // sum of exp(x - max) over the elements so far (NaN once max is +inf)
};

// C: the type the row is computed in (float for 16-bit inputs).
template <typename C>
struct SoftmaxRowFold {
  BRISK_INLINE SoftmaxRowStats<C> identity() const { return {-std::numeric_limits<C>::infinity(), C(0)}; }
  BRISK_INLINE SoftmaxRowStats<C> reduce(SoftmaxRowStats<C> acc, C x) const { return combine(acc, {x, C(1)}); }
  // Folds over disjoint parts of a row, in any order.
  BRISK_INLINE SoftmaxRowStats<C> combine(SoftmaxRowStats<C> a, SoftmaxRowStats<C> b) const {
    constexpr C kInf = std::numeric_limits<C>::infinity();
    constexpr C kNaN = std::numeric_limits<C>::quiet_NaN();
    if (is_nan(a.max) || is_nan(b.max)) return {kNaN, kNaN};
    if (b.max > a.max) {
      SoftmaxRowStats<C> t = a;
      a = b;
      b = t;
    }
    // a holds the maximum now.
    if (a.max == -kInf) return {a.max, C(0)};  // only -inf so far: the sum is settled at the end
    if (a.max == kInf) return {a.max, kNaN};   // the CPU's sum holds exp(inf - inf)
    C scale = b.max == a.max ? C(1) : vexp(b.max - a.max);
    return {a.max, a.sum + b.sum * scale};
  }
};

// The output for each element x of a row with the given statistics, as the CPU computes it:
// softmax exp(x - max) * (1 / sum), log_softmax (x - max) - log(sum). The maximum comes off
// first: x - (max + log(sum)) would lose log(sum) next to a huge maximum.
template <typename C>
struct SoftmaxRowOutput {
  C max;
  C factor;  // 1 / sum, or log(sum) for log_softmax
  bool log;

  BRISK_INLINE C operator()(C x) const {
    C shifted = x - max;
    return log ? shifted - factor : std::exp(shifted) * factor;
  }
};

template <typename C>
BRISK_INLINE SoftmaxRowOutput<C> softmax_row_output(const SoftmaxRowStats<C>& row, bool log) {
  return {row.max, log ? std::log(row.sum) : C(1) / row.sum, log};
}

}  // namespace brisk::cuda
