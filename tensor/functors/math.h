#pragma once
// Scalar helpers shared by the functors: NaN tests that also accept integers, NaN-propagating
// maximum/minimum, integer powers and saturating conversion of float64 op parameters.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/macros.h"

namespace brisk {

template <typename T>
BRISK_INLINE bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// c ? a : b. For floating point on the host it is a bitwise blend of both values, which GCC
// vectorizes where it would keep a branch (a ?: on floats often stays one at -O2).
template <typename T>
BRISK_INLINE T vselect(bool c, T a, T b) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_floating_point_v<T>) {
    using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
    Bits mask = -static_cast<Bits>(c), ab, bb;
    std::memcpy(&ab, &a, sizeof(T));
    std::memcpy(&bb, &b, sizeof(T));
    Bits r = (mask & ab) | (~mask & bb);
    T out;
    std::memcpy(&out, &r, sizeof(T));
    return out;
  }
#endif
  return c ? a : b;
}

// torch.maximum / torch.minimum: a NaN in either operand gives NaN. (A NaN b fails the
// comparison and is picked by it.)
template <typename T>
BRISK_INLINE T maximum_propagate_nan(T a, T b) {
  return vselect(is_nan(a) || a > b, a, b);
}

template <typename T>
BRISK_INLINE T minimum_propagate_nan(T a, T b) {
  return vselect(is_nan(a) || a < b, a, b);
}

// base ** exp for integers, as PyTorch: a negative exponent gives 1 / base ** -exp truncated
// toward zero, which is 1 or -1 for a base of 1 or -1, and 0 otherwise.
template <typename T>
BRISK_INLINE T integer_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp >> 1);
    base = static_cast<T>(base * base);
  }
  return result;
}

// A float64 parameter (a clamp bound, a fill value) as T; integer types saturate, so ±inf
// bounds mean "no bound".
template <typename T>
BRISK_INLINE T param_as(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace brisk
