#pragma once
// Reduction functors, one per ReduceOp (tensor/op_kinds.h), shared by the CPU and CUDA
// reduction loops. Each describes a fold over the reduced elements:
//
//   acc_t    the running state (a sum, a (value, index) pair, Welford's moments, ...);
//   input_t  what each element is converted to before reduce();
//   identity()            the state of an empty fold;
//   reduce(acc, x, i)     folds in element x, whose linear index among the reduced
//                         elements (row-major over the reduced dims) is i;
//   combine(a, b)         merges two partial folds, a over earlier indices than b;
//   project(acc)          the result (the index for ArgMax/ArgMin).
//
// kReorderable says whether elements may be folded in any order (into several partial
// accumulators, for instruction-level parallelism): true unless the result depends on which
// index came first. Acc is the accumulation type the backend picks (the CPU sums float32 in
// float64).
#include <cmath>
#include <cstdint>
#include <limits>

#include "tensor/functors/math.h"
#include "tensor/functors/vec_math.h"

namespace brisk::functors {

template <typename Acc>
struct SumReduce {
  using acc_t = Acc;
  using input_t = Acc;
  static constexpr bool kReorderable = true;
  BRISK_INLINE Acc identity() const { return Acc(0); }
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc + x; }
  BRISK_INLINE Acc combine(Acc a, Acc b) const { return a + b; }
  BRISK_INLINE Acc project(Acc a) const { return a; }
};

template <typename Acc>
struct ProdReduce {
  using acc_t = Acc;
  using input_t = Acc;
  static constexpr bool kReorderable = true;
  BRISK_INLINE Acc identity() const { return Acc(1); }
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc * x; }
  BRISK_INLINE Acc combine(Acc a, Acc b) const { return a * b; }
  BRISK_INLINE Acc project(Acc a) const { return a; }
};

// The sum divided by the number of reduced elements (NaN when there are none).
template <typename Acc>
struct MeanReduce : SumReduce<Acc> {
  Acc count;
  explicit MeanReduce(int64_t n) : count(static_cast<Acc>(n)) {}
  BRISK_INLINE Acc project(Acc a) const { return a / count; }
};

// Largest (IsMax) or smallest value; a NaN anywhere gives NaN, as torch.amax.
template <typename T, bool IsMax>
struct ExtremumReduce {
  using acc_t = T;
  using input_t = T;
  static constexpr bool kReorderable = true;
  BRISK_INLINE T identity() const {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  BRISK_INLINE T reduce(T acc, T x, int64_t) const {
    return IsMax ? maximum_propagate_nan(acc, x) : minimum_propagate_nan(acc, x);
  }
  BRISK_INLINE T combine(T a, T b) const { return reduce(a, b, 0); }
  BRISK_INLINE T project(T a) const { return a; }
};

template <typename T>
struct ValueIndex {
  T value;
  int64_t index;  // -1: no element yet
};

// Extremum with the index of its first occurrence; the first NaN wins, as torch.max(dim).
template <typename T, bool IsMax>
struct ArgExtremumReduce {
  using acc_t = ValueIndex<T>;
  using input_t = T;
  static constexpr bool kReorderable = false;
  BRISK_INLINE acc_t identity() const { return {T(0), -1}; }
  // Whether x replaces the current best value v (ties keep v, the earlier index).
  BRISK_INLINE static bool better(T x, T v) {
    if (is_nan(v)) return false;
    if (is_nan(x)) return true;
    return IsMax ? x > v : x < v;
  }
  BRISK_INLINE acc_t reduce(acc_t acc, T x, int64_t i) const {
    return (acc.index < 0 || better(x, acc.value)) ? acc_t{x, i} : acc;
  }
  BRISK_INLINE acc_t combine(acc_t a, acc_t b) const {
    if (b.index < 0) return a;
    return (a.index < 0 || better(b.value, a.value)) ? b : a;
  }
  BRISK_INLINE acc_t project(acc_t a) const { return a; }
};

template <typename Acc>
struct WelfordData {
  Acc mean;
  Acc m2;  // sum of squared deviations from the mean
  int64_t n;
};

// Variance by Welford's online algorithm; partial results merge by Chan et al.'s formula.
// Divides by max(n - correction, 0), so too few elements give inf or NaN, as torch.var.
template <typename Acc>
struct VarReduce {
  using acc_t = WelfordData<Acc>;
  using input_t = Acc;
  static constexpr bool kReorderable = true;
  Acc correction;
  explicit VarReduce(double c) : correction(static_cast<Acc>(c)) {}
  BRISK_INLINE acc_t identity() const { return {Acc(0), Acc(0), 0}; }
  BRISK_INLINE acc_t reduce(acc_t acc, Acc x, int64_t) const {
    int64_t n = acc.n + 1;
    Acc delta = x - acc.mean;
    Acc mean = acc.mean + delta / static_cast<Acc>(n);
    return {mean, acc.m2 + delta * (x - mean), n};
  }
  BRISK_INLINE acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    int64_t n = a.n + b.n;
    Acc nf = static_cast<Acc>(n);
    Acc delta = b.mean - a.mean;
    Acc b_share = static_cast<Acc>(b.n) / nf;
    return {a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * static_cast<Acc>(a.n) * b_share, n};
  }
  BRISK_INLINE Acc project(acc_t a) const {
    Acc divisor = static_cast<Acc>(a.n) - correction;
    return a.m2 / (divisor > Acc(0) ? divisor : Acc(0));
  }
};

template <typename Acc>
struct LogSumExpData {
  Acc max;  // the largest element so far (-inf: none, or only -inf)
  Acc sum;  // sum of exp(x - max)
};

// log(sum(exp(x))) in one pass, rescaling the running sum whenever the maximum grows, so exp
// never overflows. -inf elements contribute nothing; +inf gives inf; NaN gives NaN.
template <typename Acc>
struct LogSumExpReduce {
  using acc_t = LogSumExpData<Acc>;
  using input_t = Acc;
  static constexpr bool kReorderable = true;
  BRISK_INLINE acc_t identity() const { return {-std::numeric_limits<Acc>::infinity(), Acc(0)}; }
  BRISK_INLINE acc_t reduce(acc_t acc, Acc x, int64_t) const { return combine(acc, {x, Acc(1)}); }
  BRISK_INLINE acc_t combine(acc_t a, acc_t b) const {
    if (is_nan(a.max) || is_nan(b.max)) return {a.max + b.max, Acc(1)};
    if (b.max > a.max) {
      acc_t t = a;
      a = b;
      b = t;
    }
    if (b.max == -std::numeric_limits<Acc>::infinity()) return a;
    Acc scale = b.max == a.max ? Acc(1) : vexp(b.max - a.max);
    return {a.max, a.sum + b.sum * scale};
  }
  BRISK_INLINE Acc project(acc_t a) const { return a.max + std::log(a.sum); }
};

// Vector p-norms. Each p has its own functor so the loops hold no per-element branch on p.
template <typename Acc>
struct NormTwoReduce : SumReduce<Acc> {
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc + x * x; }
  BRISK_INLINE Acc project(Acc a) const { return std::sqrt(a); }
};

template <typename Acc>
struct NormOneReduce : SumReduce<Acc> {
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc + std::abs(x); }
};

// p = 0: the number of nonzero elements.
template <typename Acc>
struct NormZeroReduce : SumReduce<Acc> {
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc + (x != Acc(0) ? Acc(1) : Acc(0)); }
};

// p = inf (max |x|) and p = -inf (min |x|).
template <typename Acc, bool IsMax>
struct NormInfReduce : ExtremumReduce<Acc, IsMax> {
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t i) const {
    return ExtremumReduce<Acc, IsMax>::reduce(acc, std::abs(x), i);
  }
};

template <typename Acc>
struct NormPReduce : SumReduce<Acc> {
  Acc p;
  explicit NormPReduce(double p_) : p(static_cast<Acc>(p_)) {}
  BRISK_INLINE Acc reduce(Acc acc, Acc x, int64_t) const { return acc + std::pow(std::abs(x), p); }
  BRISK_INLINE Acc project(Acc a) const { return std::pow(a, Acc(1) / p); }
};

}  // namespace brisk::functors
