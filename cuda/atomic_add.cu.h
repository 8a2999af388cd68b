#pragma once
// *address += value as one atomic read-modify-write, for every dtype the kernels scatter
// into (scatter_add, max pooling's backward):
//   - float, double, int32: CUDA's atomicAdd;
//   - int64: atomicAdd on the unsigned 64-bit word (two's complement addition is the same);
//   - bool, uint8, bfloat16, float16: compare-and-swap on the aligned 32-bit word that holds
//     the element, the addition done in opmath_t and rounded to T (as on the CPU).
// Concurrent additions to one element land in an unspecified order; for floats the sum can
// then differ between runs in its last bits (more so in 16 bits, where every addition rounds).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/functors/cast.h"

namespace brisk::cuda {

template <typename T>
__device__ void atomic_add_narrow(T* address, T value) {
  static_assert(sizeof(T) <= 2, "atomic_add_narrow: 8- and 16-bit types");
  auto addr = reinterpret_cast<uintptr_t>(address);
  auto* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
  unsigned shift = static_cast<unsigned>(addr & 3) * 8;
  unsigned mask = ((1u << (sizeof(T) * 8)) - 1) << shift;
  unsigned old = *word;
  unsigned assumed;
  do {
    assumed = old;
    unsigned current_bits = (assumed & mask) >> shift;
    T current;
    memcpy(&current, &current_bits, sizeof(T));
    T sum = cast<T>(cast<opmath_t<T>>(current) + cast<opmath_t<T>>(value));
    unsigned sum_bits = 0;
    memcpy(&sum_bits, &sum, sizeof(T));
    old = atomicCAS(word, assumed, (assumed & ~mask) | (sum_bits << shift));
  } while (assumed != old);
}

template <typename T>
__device__ __forceinline__ void atomic_add(T* address, T value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(address, value);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  } else {
    atomic_add_narrow(address, value);
  }
}

}  // namespace brisk::cuda
