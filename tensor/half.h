#pragma once
// bfloat16 and IEEE float16 as 16-bit storage types. Arithmetic converts to float32;
// conversions round to nearest even, as PyTorch does. In CUDA device code each conversion is
// one cvt instruction with the same rounding (NaN may come out as another NaN pattern).
#include <cstdint>
#include <cstring>

#include "tensor/macros.h"

namespace brisk {

namespace detail {
BRISK_INLINE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}
BRISK_INLINE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}
}  // namespace detail

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BRISK_HOST_DEVICE BFloat16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(f));
#else
    // Branch-free (a select for NaN), so that loops of conversions vectorize.
    uint32_t u = detail::float_bits(f);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    bits = (u & 0x7fffffffu) > 0x7f800000u ? uint16_t{0x7fc0} : static_cast<uint16_t>(rounded);
#endif
  }
  BRISK_HOST_DEVICE operator float() const { return detail::bits_float(static_cast<uint32_t>(bits) << 16); }
};

struct Half {
  uint16_t bits = 0;
  Half() = default;
  BRISK_HOST_DEVICE Half(float f) { bits = from_float(f); }
  BRISK_HOST_DEVICE operator float() const { return to_float(bits); }

  BRISK_HOST_DEVICE static uint16_t from_float(float f) {
#if defined(__CUDA_ARCH__)
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x = detail::float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflows to inf
    if (abs < 0x38800000u) {
      // Subnormal half: add a magic number so the FPU does the round-to-nearest-even shift.
      float magic = detail::bits_float(0x3f000000u);  // 0.5
      float v = detail::bits_float(abs) + magic;
      return static_cast<uint16_t>(sign | (detail::float_bits(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<uint16_t>(sign | (abs >> 13));
#endif
  }
  BRISK_HOST_DEVICE static float to_float(uint16_t h) {
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      if (mant == 0) return detail::bits_float(sign);
      float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // 2^-24
      return sign ? -v : v;
    }
    return detail::bits_float(sign | ((exp + 112) << 23) | (mant << 13));
#endif
  }
};

}  // namespace brisk
