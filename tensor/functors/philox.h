#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. The bits for element i of a random op depend only on the
// generator's seed and the counter offset + i, so any thread (CPU or GPU) can draw any
// element independently and the result never depends on how work is split.
#include <cmath>
#include <cstdint>

#include "tensor/macros.h"

namespace brisk {

struct Philox4x32 {
  uint32_t v[4];
};

namespace philox_detail {
constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;
constexpr uint32_t kWeyl1 = 0xBB67AE85u;

BRISK_INLINE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}
}  // namespace philox_detail

// Ten rounds over a 128-bit counter and a 64-bit key.
BRISK_INLINE Philox4x32 philox4x32_10(Philox4x32 ctr, uint32_t k0, uint32_t k1) {
  using namespace philox_detail;
  uint32_t c0 = ctr.v[0], c1 = ctr.v[1], c2 = ctr.v[2], c3 = ctr.v[3];
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kMul0, c0, hi0, lo0);
    mulhilo(kMul1, c2, hi1, lo1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

// The four words Brisk draws for (seed, counter): the 64-bit counter fills the low half of
// the Philox counter and the seed is the key.
BRISK_INLINE Philox4x32 philox4x32(uint64_t seed, uint64_t counter) {
  Philox4x32 ctr{{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u}};
  return philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Uniform in [0, 1) from the top 24 bits of a word: every float it returns is exact.
BRISK_INLINE float uniform_float(uint32_t bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

// Uniform in [0, 1) from 53 bits of two words.
BRISK_INLINE double uniform_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = (static_cast<uint64_t>(hi) << 21) | (lo >> 11);
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

// One standard normal sample from the four words (Box-Muller; 1 - u keeps the log finite).
BRISK_INLINE float normal_float(const Philox4x32& r) {
  float u1 = 1.0f - uniform_float(r.v[0]);
  float u2 = uniform_float(r.v[1]);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

BRISK_INLINE double normal_double(const Philox4x32& r) {
  double u1 = 1.0 - uniform_double(r.v[0], r.v[1]);
  double u2 = uniform_double(r.v[2], r.v[3]);
  return sqrt(-2.0 * log(u1)) * cos(6.28318530717958647692 * u2);
}

// The draws of the random ops (RandomOp), shared by the CPU and CUDA kernels so that both
// produce the same numbers. Each scales with one explicit fma: compilers contract
// `from + range * u` into an fma or not at their own discretion, which would change last bits
// between devices and builds.
struct UniformFloatDraw {
  float from, range;
  BRISK_INLINE float operator()(const Philox4x32& r) const { return fmaf(range, uniform_float(r.v[0]), from); }
};

struct UniformDoubleDraw {
  double from, range;
  BRISK_INLINE double operator()(const Philox4x32& r) const { return fma(range, uniform_double(r.v[0], r.v[1]), from); }
};

// Box-Muller's logf/cosf/sqrtf are each library's own, so normal samples agree between the
// CPU and CUDA to a few ulps, not bit for bit.
struct NormalFloatDraw {
  float mean, std;
  BRISK_INLINE float operator()(const Philox4x32& r) const { return fmaf(std, normal_float(r), mean); }
};

struct NormalDoubleDraw {
  double mean, std;
  BRISK_INLINE double operator()(const Philox4x32& r) const { return fma(std, normal_double(r), mean); }
};

struct BernoulliDraw {
  double p;
  BRISK_INLINE bool operator()(const Philox4x32& r) const { return uniform_double(r.v[0], r.v[1]) < p; }
};

// An integer in [low, low + range) from 64 bits of two words. The modulo's bias is below
// range / 2^64, invisible for any range a tensor can use.
struct RandomIntDraw {
  int64_t low;
  uint64_t range;
  BRISK_INLINE int64_t operator()(const Philox4x32& r) const {
    uint64_t bits = (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
    return low + static_cast<int64_t>(bits % range);
  }
};

}  // namespace brisk
