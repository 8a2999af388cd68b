#pragma once
// One functor per UnaryOp (tensor/op_kinds.h), the math of each op once for the CPU and CUDA
// kernels. T is the type the op computes in (opmath_t of the storage type: float for
// bfloat16/float16); the float-only ops (exp, log, sigmoid, ...) are instantiated for floating
// T only, because the native ops promote integer inputs to float32 first, as PyTorch does.
// Formulas follow PyTorch's CPU kernels.
#include <cmath>
#include <type_traits>

#include "tensor/functors/cast.h"
#include "tensor/functors/math.h"
#include "tensor/functors/vec_math.h"
#include "tensor/op_kinds.h"

namespace brisk::functors {

template <typename T>
struct Neg {
  BRISK_INLINE T operator()(T x) const { return static_cast<T>(-x); }
};

template <typename T>
struct Abs {
  BRISK_INLINE T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::abs(x);
    } else if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < 0 ? static_cast<T>(-x) : x;
    }
  }
};

template <typename T>
struct Exp {
  BRISK_INLINE T operator()(T x) const { return vexp(x); }
};

template <typename T>
struct Log {
  BRISK_INLINE T operator()(T x) const { return std::log(x); }
};

template <typename T>
struct Sqrt {
  BRISK_INLINE T operator()(T x) const { return std::sqrt(x); }
};

template <typename T>
struct Rsqrt {
  BRISK_INLINE T operator()(T x) const { return T(1) / std::sqrt(x); }
};

template <typename T>
struct Square {
  BRISK_INLINE T operator()(T x) const { return static_cast<T>(x * x); }
};

template <typename T>
struct Reciprocal {
  BRISK_INLINE T operator()(T x) const { return T(1) / x; }
};

template <typename T>
struct Sin {
  BRISK_INLINE T operator()(T x) const { return std::sin(x); }
};

template <typename T>
struct Cos {
  BRISK_INLINE T operator()(T x) const { return std::cos(x); }
};

// The error function. float32 through verf (vectorizable, within 7 ulp; erff on CUDA).
template <typename T>
struct Erf {
  BRISK_INLINE T operator()(T x) const { return verf(x); }
};

// -1, 0 or 1; NaN gives 0; bool stays bool.
template <typename T>
struct Sign {
  BRISK_INLINE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(x != T(0));
    } else {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  }
};

// NaN and -0.0 pass through, as PyTorch's relu.
template <typename T>
struct Relu {
  BRISK_INLINE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < T(0) ? T(0) : x;
    }
  }
};

// With e = exp(-|x|): 1 / (1 + e) for x >= 0 and e / (1 + e) below, so exp never overflows
// and small outputs keep their relative precision. Branch-free, so loops vectorize.
template <typename T>
struct Sigmoid {
  BRISK_INLINE T operator()(T x) const {
    T e = vexp(-std::abs(x));
    T r = T(1) / (T(1) + e);
    return vselect(x >= T(0), r, e * r);
  }
};

template <typename T>
struct Tanh {
  BRISK_INLINE T operator()(T x) const { return vtanh(x); }
};

// Exact GELU: x * Phi(x), with Phi through erf.
template <typename T>
struct Gelu {
  BRISK_INLINE T operator()(T x) const {
    constexpr T kAlpha = static_cast<T>(0.70710678118654752440);  // 1/sqrt(2)
    return x * T(0.5) * (T(1) + verf(x * kAlpha));
  }
};

// GELU's tanh approximation (approximate="tanh").
template <typename T>
struct GeluTanh {
  BRISK_INLINE T operator()(T x) const {
    constexpr T kBeta = static_cast<T>(0.79788456080286535588);  // sqrt(2/pi)
    constexpr T kKappa = static_cast<T>(0.044715);
    T inner = kBeta * (x + kKappa * x * x * x);
    return T(0.5) * x * (T(1) + vtanh(inner));
  }
};

template <typename T>
struct Silu {
  BRISK_INLINE T operator()(T x) const { return x * Sigmoid<T>()(x); }
};

template <typename T>
struct LogicalNot {
  BRISK_INLINE bool operator()(T x) const { return !x; }
};

// min(max(x, lo), hi): NaN inputs stay NaN and lo > hi gives hi, as torch.clamp.
template <typename T>
struct Clamp {
  T lo, hi;
  explicit Clamp(OpParams p) : lo(param_as<T>(p.a)), hi(param_as<T>(p.b)) {}
  BRISK_INLINE T operator()(T x) const { return minimum_propagate_nan(maximum_propagate_nan(x, lo), hi); }
};

template <typename T>
BRISK_INLINE T pow_value(T base, T exp) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(base, exp);
  } else if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    return integer_pow(base, exp);
  }
}

template <typename T>
struct PowScalar {
  T exponent;
  explicit PowScalar(OpParams p) : exponent(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T x) const { return pow_value(x, exponent); }
};

template <typename T>
struct RPowScalar {
  T base;
  explicit RPowScalar(OpParams p) : base(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T x) const { return pow_value(base, x); }
};

// x above zero, negative_slope * x otherwise (NaN stays NaN).
template <typename T>
struct LeakyRelu {
  T slope;
  explicit LeakyRelu(OpParams p) : slope(static_cast<T>(p.a)) {}
  BRISK_INLINE T operator()(T x) const { return vselect(x > T(0), x, x * slope); }
};

// x above zero, alpha * (e^x - 1) otherwise.
template <typename T>
struct Elu {
  T alpha;
  explicit Elu(OpParams p) : alpha(static_cast<T>(p.a)) {}
  BRISK_INLINE T operator()(T x) const { return x > T(0) ? x : alpha * std::expm1(x); }
};

// log(1 + e^(beta x)) / beta, and x itself once beta x exceeds the threshold (where the two
// agree to rounding and the exponential would overflow).
template <typename T>
struct Softplus {
  T beta, threshold;
  explicit Softplus(OpParams p) : beta(static_cast<T>(p.a)), threshold(static_cast<T>(p.b)) {}
  BRISK_INLINE T operator()(T x) const { return x * beta > threshold ? x : std::log1p(vexp(x * beta)) / beta; }
};

// x * relu6(x + 3) / 6.
template <typename T>
struct Hardswish {
  BRISK_INLINE T operator()(T x) const {
    T gate = x + T(3) < T(0) ? T(0) : (x + T(3) > T(6) ? T(6) : x + T(3));
    return x * gate / T(6);
  }
};

// Converts like a copy does (uint8 -1 -> 255); the native op checks the range first.
template <typename T>
struct Fill {
  T value;
  explicit Fill(OpParams p) : value(cast<T>(p.a)) {}
  BRISK_INLINE T operator()() const { return value; }
};

}  // namespace brisk::functors
