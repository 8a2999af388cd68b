#pragma once
// Byte offsets of strided operands from a linear element index, on the device.
//
// The host describes the operands as a iter::LoopShape (tensor/iter/loop_shape.h: size-1 dims
// dropped, dims ordered and merged, dim 0 innermost, strides in bytes), cut into launch
// pieces of at most kMaxLaunchDims dims and 2^31 - 1 elements (for_each_launch_piece in
// cuda/launch.h), so the device works with 32-bit linear indices and divides them by
// multiplication (IntDivider).
// The outermost dim needs no division at all: a contiguous or broadcast-scalar operand costs
// no index arithmetic beyond one multiply.
#include <cstdint>

#include "cuda/launch.h"
#include "tensor/iter/loop_shape.h"
#include "tensor/macros.h"

namespace brisk::cuda {

template <typename T, int N>
struct Array {
  T v[N];
  BRISK_INLINE T& operator[](int i) { return v[i]; }
  BRISK_INLINE const T& operator[](int i) const { return v[i]; }
};

// Division by a fixed divisor as a multiply-high and a shift (Granlund & Montgomery), valid
// for dividends below 2^31 and divisors from 1 to 2^31.
struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 0;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }

  struct DivMod {
    uint32_t div;
    uint32_t mod;
  };
  __device__ __forceinline__ DivMod divmod(uint32_t n) const {
    uint32_t q = (__umulhi(n, magic) + n) >> shift;
    return {q, n - q * divisor};
  }
};

// Offsets (bytes) of element `linear` in each of N operands walked together.
template <int N>
struct OffsetCalculator {
  int ndim = 0;
  IntDivider sizes[kMaxLaunchDims];
  int64_t strides[kMaxLaunchDims][N];

  OffsetCalculator() = default;
  // Dims innermost first, each of size >= 1; operand_strides[k][d] is operand k's stride
  // along dim d in bytes.
  OffsetCalculator(int ndim_, const int64_t* dim_sizes, const int64_t* const* operand_strides) : ndim(ndim_) {
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = IntDivider(static_cast<uint32_t>(dim_sizes[d]));
      for (int k = 0; k < N; ++k) strides[d][k] = operand_strides[k][d];
    }
  }

  __device__ __forceinline__ Array<int64_t, N> get(uint32_t linear) const {
    Array<int64_t, N> offsets;
#pragma unroll
    for (int k = 0; k < N; ++k) offsets[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxLaunchDims; ++d) {
      if (d == ndim) break;
      uint32_t index = linear;
      if (d + 1 < ndim) {
        IntDivider::DivMod dm = sizes[d].divmod(linear);
        index = dm.mod;
        linear = dm.div;
      }
#pragma unroll
      for (int k = 0; k < N; ++k) offsets[k] += static_cast<int64_t>(index) * strides[d][k];
    }
    return offsets;
  }
};

template <int N>
OffsetCalculator<N> make_offset_calculator(const iter::LoopShape& s) {
  const int64_t* strides[N];
  for (int k = 0; k < N; ++k) strides[k] = s.strides[k];
  return OffsetCalculator<N>(s.ndim, s.sizes, strides);
}

}  // namespace brisk::cuda
