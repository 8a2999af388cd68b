#pragma once
// Value conversions between element types, as PyTorch's c10::convert does them, shared by
// the CPU and CUDA kernels:
//   - to bool: x != 0;
//   - to uint8: through int64, so negative floats wrap (-1.0 -> 255) the same way on every
//     compiler instead of being undefined behavior;
//   - to and from bfloat16/float16: through float32, rounding to nearest even.
// opmath_t<T> is the type the arithmetic of T is done in: float for the 16-bit floats.
#include <cstdint>
#include <type_traits>

#include "tensor/half.h"
#include "tensor/macros.h"

namespace brisk {

template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;

template <typename To, typename From>
BRISK_INLINE To cast(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_reduced_float_v<From>) {
    return cast<To>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(x));
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace brisk
