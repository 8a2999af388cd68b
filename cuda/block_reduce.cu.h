#pragma once
// Combining per-thread partial folds inside a thread block, for the reduction and softmax
// kernels. The values are any trivially copyable accumulator (a float, a (value, index) pair,
// Welford's moments, a running log-sum-exp) and `combine(a, b)` merges two of them.
//
// Threads are laid out as blockDim.x "lanes" per group and blockDim.y groups:
//   - group_reduce_x: the lanes of a group are threadIdx.x (groups of up to a block);
//     warp shuffles within each warp, then one value per warp through shared memory; the
//     result lands in lane 0 (group_all_reduce_x: in every lane);
//   - group_reduce_y: the lanes of a group are threadIdx.y (one group per threadIdx.x);
//     a tree through shared memory; every lane gets the result.
// All contain __syncthreads(): every thread of the block must call them.
#include <cstring>

namespace brisk::cuda {

constexpr int kWarpSize = 32;

// __shfl_down_sync for any trivially copyable T, one 32-bit word at a time.
template <typename T>
__device__ __forceinline__ T shfl_down(const T& value, unsigned delta, int width) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  unsigned words[kWords] = {};
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < kWords; ++i) words[i] = __shfl_down_sync(0xffffffffu, words[i], delta, width);
  T result;
  memcpy(&result, words, sizeof(T));
  return result;
}

// Reduces `value` over each aligned group of `width` lanes of a warp (width a power of two,
// at most 32); lane 0 of each group gets the result. All 32 lanes must call it.
template <typename T, typename Combine>
__device__ __forceinline__ T warp_reduce(T value, const Combine& combine, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) value = combine(value, shfl_down(value, offset, width));
  return value;
}

// `shared` holds at least blockDim.x * blockDim.y / 32 values. blockDim.x is a power of two.
template <typename T, typename Combine>
__device__ T group_reduce_x(T value, const Combine& combine, T* shared) {
  int lanes = blockDim.x;
  if (lanes <= kWarpSize) return warp_reduce(value, combine, lanes);
  value = warp_reduce(value, combine, kWarpSize);
  int warps_per_group = lanes / kWarpSize;
  int warp = threadIdx.x / kWarpSize;
  if (threadIdx.x % kWarpSize == 0) shared[threadIdx.y * warps_per_group + warp] = value;
  __syncthreads();
  if (warp == 0) {
    // The group's first warp gathers one value per warp; lanes past them read their own
    // warp's value again and are ignored by the narrower reduction below.
    int lane = static_cast<int>(threadIdx.x);
    value = shared[threadIdx.y * warps_per_group + (lane < warps_per_group ? lane : 0)];
    value = warp_reduce(value, combine, warps_per_group);
  }
  __syncthreads();
  return value;
}

// `shared` holds blockDim.x * blockDim.y values. blockDim.y is a power of two.
template <typename T, typename Combine>
__device__ T group_reduce_y(T value, const Combine& combine, T* shared) {
  int x = threadIdx.x, y = threadIdx.y, width = blockDim.x;
  shared[y * width + x] = value;
  __syncthreads();
  for (int half = blockDim.y / 2; half > 0; half /= 2) {
    if (y < half) shared[y * width + x] = combine(shared[y * width + x], shared[(y + half) * width + x]);
    __syncthreads();
  }
  value = shared[x];
  __syncthreads();
  return value;
}

// group_reduce_x whose result every lane of the group gets.
template <typename T, typename Combine>
__device__ T group_all_reduce_x(T value, const Combine& combine, T* shared) {
  value = group_reduce_x(value, combine, shared);
  if (threadIdx.x == 0) shared[threadIdx.y] = value;
  __syncthreads();
  value = shared[threadIdx.y];
  __syncthreads();
  return value;
}

}  // namespace brisk::cuda
