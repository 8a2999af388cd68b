#pragma once
// One functor per BinaryOp (tensor/op_kinds.h). T is the type the op computes in (opmath_t of
// the common dtype). Comparisons and logical ops return bool. The *Backward functors take
// (grad, saved) and return the gradient of the forward op's input, in PyTorch's formulas.
#include <cmath>
#include <type_traits>

#include "tensor/functors/math.h"
#include "tensor/functors/unary.h"
#include "tensor/op_kinds.h"

namespace brisk::functors {

// a + alpha * b
template <typename T>
struct Add {
  T alpha;
  explicit Add(OpParams p) : alpha(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T a, T b) const { return static_cast<T>(a + alpha * b); }
};

// a - alpha * b
template <typename T>
struct Sub {
  T alpha;
  explicit Sub(OpParams p) : alpha(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T a, T b) const { return static_cast<T>(a - alpha * b); }
};

// relu(a + b) in one pass: a residual sum or a bias with the ReLU after it (add_relu).
template <typename T>
struct AddRelu {
  BRISK_INLINE T operator()(T a, T b) const { return Relu<T>()(static_cast<T>(a + b)); }
};

template <typename T>
struct Mul {
  BRISK_INLINE T operator()(T a, T b) const { return static_cast<T>(a * b); }
};

// True division; the native op promotes integer operands to float32 first.
template <typename T>
struct Div {
  static_assert(std::is_floating_point_v<T>, "Div computes in floating point");
  BRISK_INLINE T operator()(T a, T b) const { return a / b; }
};

template <typename T>
struct Pow {
  BRISK_INLINE T operator()(T a, T b) const { return pow_value(a, b); }
};

template <typename T>
struct Maximum {
  BRISK_INLINE T operator()(T a, T b) const { return maximum_propagate_nan(a, b); }
};

template <typename T>
struct Minimum {
  BRISK_INLINE T operator()(T a, T b) const { return minimum_propagate_nan(a, b); }
};

// a + weight * (b - a), in PyTorch's two-sided form: from b's side when |weight| >= 0.5,
// so that weight 1 gives exactly b.
template <typename T>
struct Lerp {
  static_assert(std::is_floating_point_v<T>, "Lerp computes in floating point");
  T weight;
  bool from_a;
  explicit Lerp(OpParams p) : weight(static_cast<T>(p.a)), from_a(std::abs(weight) < T(0.5)) {}
  BRISK_INLINE T operator()(T a, T b) const { return from_a ? a + weight * (b - a) : b - (b - a) * (T(1) - weight); }
};

// The remainder of a / b with the sign of a (C's fmod and %, torch.fmod). An integer divisor
// of zero gives 0 instead of a trap (the public op raises for it first, as PyTorch), and one of
// -1 gives 0 without the overflow of lowest % -1.
template <typename T>
struct Fmod {
  BRISK_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else if constexpr (std::is_unsigned_v<T>) {
      return b == T(0) ? T(0) : static_cast<T>(a % b);
    } else {
      return b == T(0) || b == T(-1) ? T(0) : static_cast<T>(a % b);
    }
  }
};

// The remainder of a / b with the sign of b (Python's %, torch.remainder): Fmod's, moved by b
// when the signs differ.
template <typename T>
struct Remainder {
  BRISK_INLINE T operator()(T a, T b) const {
    T r = Fmod<T>()(a, b);
    if constexpr (std::is_unsigned_v<T>) {
      return r;
    } else {
      return (r != T(0)) && ((b < T(0)) != (r < T(0))) ? static_cast<T>(r + b) : r;
    }
  }
};

template <typename T>
struct Eq {
  BRISK_INLINE bool operator()(T a, T b) const { return a == b; }
};
template <typename T>
struct Ne {
  BRISK_INLINE bool operator()(T a, T b) const { return a != b; }
};
template <typename T>
struct Lt {
  BRISK_INLINE bool operator()(T a, T b) const { return a < b; }
};
template <typename T>
struct Le {
  BRISK_INLINE bool operator()(T a, T b) const { return a <= b; }
};
template <typename T>
struct Gt {
  BRISK_INLINE bool operator()(T a, T b) const { return a > b; }
};
template <typename T>
struct Ge {
  BRISK_INLINE bool operator()(T a, T b) const { return a >= b; }
};

template <typename T>
struct LogicalAnd {
  BRISK_INLINE bool operator()(T a, T b) const { return static_cast<bool>(a) && static_cast<bool>(b); }
};
template <typename T>
struct LogicalOr {
  BRISK_INLINE bool operator()(T a, T b) const { return static_cast<bool>(a) || static_cast<bool>(b); }
};

// grad where input > 0 (NaN inputs pass the gradient, as threshold_backward).
template <typename T>
struct ReluBackward {
  BRISK_INLINE T operator()(T grad, T input) const { return input <= T(0) ? T(0) : grad; }
};

template <typename T>
struct SigmoidBackward {
  BRISK_INLINE T operator()(T grad, T output) const { return grad * (T(1) - output) * output; }
};

template <typename T>
struct TanhBackward {
  BRISK_INLINE T operator()(T grad, T output) const { return grad * (T(1) - output * output); }
};

template <typename T>
struct GeluBackward {
  BRISK_INLINE T operator()(T grad, T x) const {
    constexpr T kAlpha = static_cast<T>(0.70710678118654752440);  // 1/sqrt(2)
    constexpr T kBeta = static_cast<T>(0.39894228040143267794);   // 1/sqrt(2*pi)
    T cdf = T(0.5) * (T(1) + verf(x * kAlpha));
    T pdf = kBeta * vexp(x * x * T(-0.5));
    return grad * (cdf + x * pdf);
  }
};

template <typename T>
struct GeluTanhBackward {
  BRISK_INLINE T operator()(T grad, T x) const {
    constexpr T kBeta = static_cast<T>(0.79788456080286535588);  // sqrt(2/pi)
    constexpr T kKappa = static_cast<T>(0.044715);
    T x_sq = x * x;
    T inner = kBeta * (x + kKappa * x_sq * x);
    T tanh_inner = vtanh(inner);
    T left = T(0.5) * x;
    T right = T(1) + tanh_inner;
    T left_derivative = T(0.5) * right;
    T tanh_derivative = T(1) - tanh_inner * tanh_inner;
    T inner_derivative = kBeta * (T(1) + T(3) * kKappa * x_sq);
    return grad * (left_derivative + left * tanh_derivative * inner_derivative);
  }
};

template <typename T>
struct SiluBackward {
  BRISK_INLINE T operator()(T grad, T x) const {
    T sigmoid = Sigmoid<T>()(x);
    return grad * sigmoid * (T(1) + x * (T(1) - sigmoid));
  }
};

// grad above zero, grad * negative_slope (params.a) otherwise, as leaky_relu_backward.
template <typename T>
struct LeakyReluBackward {
  T slope;
  explicit LeakyReluBackward(OpParams p) : slope(static_cast<T>(p.a)) {}
  BRISK_INLINE T operator()(T grad, T x) const { return vselect(x > T(0), grad, grad * slope); }
};

// grad above zero, grad * alpha (params.a) * e^x otherwise.
template <typename T>
struct EluBackward {
  T alpha;
  explicit EluBackward(OpParams p) : alpha(static_cast<T>(p.a)) {}
  BRISK_INLINE T operator()(T grad, T x) const { return x > T(0) ? grad : grad * alpha * vexp(x); }
};

// grad * sigmoid(beta x) below the threshold (params: beta, threshold), grad above it.
template <typename T>
struct SoftplusBackward {
  T beta, threshold;
  explicit SoftplusBackward(OpParams p) : beta(static_cast<T>(p.a)), threshold(static_cast<T>(p.b)) {}
  BRISK_INLINE T operator()(T grad, T x) const {
    if (x * beta > threshold) return grad;
    T z = vexp(x * beta);
    return grad * z / (z + T(1));
  }
};

// 0 below -3, grad * (x / 3 + 1/2) up to 3, grad above, as hardswish_backward.
template <typename T>
struct HardswishBackward {
  BRISK_INLINE T operator()(T grad, T x) const {
    if (x < T(-3)) return T(0);
    return x <= T(3) ? grad * (x / T(3) + T(0.5)) : grad;
  }
};

}  // namespace brisk::functors
