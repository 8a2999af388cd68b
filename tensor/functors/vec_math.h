#pragma once
// exp, tanh and erf for float32 written with arithmetic and bit operations only, so that a
// compiler vectorizes the loops that call them (libm's expf and tanhf are opaque calls that
// keep a loop scalar; std::floor and ?: on floats also defeat GCC's vectorizer at -O2, so
// rounding uses a magic constant and choices use vselect).
// exp and tanh are within 1 ulp of the correctly rounded result, erf within 7 ulp (an
// absolute error below 5e-7), over the whole float range including overflow to inf,
// gradual underflow, ±inf, NaN and -0.
//
// brisk::vexp / vtanh / verf pick these for float32 on the host, the CUDA functions on the
// device and libm for float64.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/functors/math.h"
#include "tensor/macros.h"

namespace brisk {

namespace vec_math_detail {

BRISK_INLINE float from_bits(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

}  // namespace vec_math_detail

// exp(x) = 2^n * exp(r) with n = round(x / ln 2) and |r| <= ln(2) / 2; exp(r) by Cephes'
// degree-6 minimax polynomial; ln 2 split in two parts so r is exact. 2^n is applied as two
// factors so that results in the subnormal range round correctly.
BRISK_INLINE float exp_f32(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  // Beyond these, exp(x) is inf or rounds to 0; clamping also maps NaN to a finite value so
  // the integer conversion below is defined (NaN is restored at the end).
  constexpr float kHi = 88.8f, kLo = -104.0f;
  // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
  constexpr float kRound = 12582912.0f;
  float xc = vselect(x > kLo, x, kLo);
  xc = vselect(xc < kHi, xc, kHi);
  float n = (xc * kLog2e + kRound) - kRound;
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.0f;
  auto ni = static_cast<int32_t>(n);  // in [-150, 128]
  int32_t half = ni / 2;
  y = y * vec_math_detail::from_bits((half + 127) << 23);
  y = y * vec_math_detail::from_bits((ni - half + 127) << 23);
  return vselect(x != x, x, y);
}

// tanh: Cephes' odd polynomial for |x| < 0.625, where 1 - 2 / (exp(2x) + 1) would cancel;
// otherwise that formula with exp_f32, which saturates to ±1 for large |x|.
BRISK_INLINE float tanh_f32(float x) {
  float ax = std::fabs(x);
  float z = x * x;
  float poly = -5.70498872745e-3f;
  poly = poly * z + 2.06390887954e-2f;
  poly = poly * z - 5.37397155531e-2f;
  poly = poly * z + 1.33314422036e-1f;
  poly = poly * z - 3.33332819422e-1f;
  float small = poly * z * x + x;
  float large = 1.0f - 2.0f / (exp_f32(2.0f * ax) + 1.0f);
  large = vselect(x < 0.0f, -large, large);
  float y = vselect(ax < 0.625f, small, large);
  return vselect(x != x || x == 0.0f, x, y);  // NaN, and the sign of zero, pass through
}

// erf by the 13/8-degree rational approximation of Eigen's generic_fast_erf_float (from
// TensorFlow) on [-4, 4], outside of which erf rounds to ±1 in float32.
BRISK_INLINE float erf_f32(float x) {
  float xc = vselect(x < 4.0f, x, 4.0f);
  xc = vselect(xc > -4.0f, xc, -4.0f);
  float x2 = xc * xc;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  return vselect(x != x, x, xc * (p / q));
}

// The float32 function of the host or of CUDA's device code.
#if defined(__CUDA_ARCH__)
#define BRISK_FLOAT32_MATH(host, device) device
#else
#define BRISK_FLOAT32_MATH(host, device) host
#endif

template <typename T>
BRISK_INLINE T verf(T x) {
  if constexpr (std::is_same_v<T, float>) return BRISK_FLOAT32_MATH(erf_f32, ::erff)(x);
  return std::erf(x);
}

template <typename T>
BRISK_INLINE T vexp(T x) {
  if constexpr (std::is_same_v<T, float>) return BRISK_FLOAT32_MATH(exp_f32, ::expf)(x);
  return std::exp(x);
}

template <typename T>
BRISK_INLINE T vtanh(T x) {
  if constexpr (std::is_same_v<T, float>) return BRISK_FLOAT32_MATH(tanh_f32, ::tanhf)(x);
  return std::tanh(x);
}

#undef BRISK_FLOAT32_MATH

}  // namespace brisk
