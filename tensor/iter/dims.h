#pragma once
// The dims of an iteration, as every loop walks them (the CPU's cpu_kernel and reduce_loop,
// the CUDA launches): at most kMaxDims, innermost first, strides in bytes.
#include <cstdint>

namespace brisk::iter {

constexpr int kMaxDims = 25;

// Merges each dim into the run inside it when every one of the `nstrides` stride arrays steps
// over the run as one, so most tensors become one flat run. Keeps the order of dims, which
// keeps the elements' linear positions intact.
void merge_dims(int& ndim, int64_t* sizes, int64_t* const* strides, int nstrides);

}  // namespace brisk::iter
