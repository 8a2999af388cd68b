#pragma once
// The dims of an iteration, as every loop walks them (the CPU's cpu_kernel and reduce_loop,
// the CUDA launches): at most kMaxDims, innermost first, strides in bytes.
#include <algorithm>
#include <cstdint>

namespace brisk::iter {

constexpr int kMaxDims = 25;

// Merges each dim into the run inside it when every one of the `nstrides` stride arrays steps
// over the run as one, so most tensors become one flat run. Keeps the order of dims, which
// keeps the elements' linear positions intact.
void merge_dims(int& ndim, int64_t* sizes, int64_t* const* strides, int nstrides);

// Visits the linear positions [begin, end) of the `ndim` dims of `sizes` in runs along dim 0,
// as an N-d counter: f(idx, n, pos) for each run, idx being the index of its first position
// in every dim and pos that position.
template <typename F>
void for_each_run(const int64_t* sizes, int ndim, int64_t begin, int64_t end, const F& f) {
  if (begin >= end) return;  // also keeps a size-0 dim out of the divisions below
  int64_t idx[kMaxDims];
  int64_t rem = begin;
  for (int d = 0; d < ndim; ++d) {
    idx[d] = rem % sizes[d];
    rem /= sizes[d];
  }
  for (int64_t pos = begin; pos < end;) {
    int64_t n = std::min(sizes[0] - idx[0], end - pos);
    f(idx, n, pos);
    pos += n;
    idx[0] += n;
    for (int d = 0; d + 1 < ndim && idx[d] == sizes[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

}  // namespace brisk::iter
