#pragma once
// The arithmetic of 2-D max, average and adaptive average pooling on one plane [H, W] (one
// image channel) of an NCHW or channels_last tensor, shared by the CPU (tensor/cpu/pool.cc)
// and CUDA (cuda/pool.cu) kernels. Each function computes one element: an output of the
// forward, or an input's gradient. A plane is reached through a pointer to its first element;
// its element (y, x) lies (y * W + x) * pixel_step further: pixel_step is 1 in NCHW memory
// and C (the channels) in channels_last memory. Max pooling's indices are plane positions
// y * W + x in either layout, as PyTorch's.
//
// Sums and comparisons are done in opmath_t<T> (tensor/functors/cast.h) and the result is
// rounded to T once, as PyTorch's CUDA pooling does: float32 for bfloat16/float16 storage,
// T itself (so the very same operations) for float32 and float64.
//
// The average backwards gather: an input element sums the gradients of the outputs whose
// windows hold it, visiting them in row-major order (the order a scatter over the outputs
// would add them). No two threads write one element, so there are no atomics and the result
// does not depend on scheduling. (Max pooling's backward scatters onto the argmax instead:
// the backend interface gives it no window geometry.)
#include <cstdint>
#include <limits>

#include "tensor/functors/cast.h"
#include "tensor/functors/math.h"
#include "tensor/macros.h"
#include "tensor/window_params.h"

namespace brisk::functors {

// One plane's geometry: Pool2dParams and the sizes as plain scalars a kernel takes by value.
struct PoolPlane {
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  bool count_include_pad;
  int64_t divisor_override;  // 0: none
  int64_t pixel_step;        // 1 (NCHW) or the channels (channels_last)
};

inline PoolPlane pool_plane(const Pool2dParams& q, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                            int64_t pixel_step = 1) {
  return {in_h,
          in_w,
          out_h,
          out_w,
          q.kernel[0],
          q.kernel[1],
          q.stride[0],
          q.stride[1],
          q.padding[0],
          q.padding[1],
          q.dilation[0],
          q.dilation[1],
          q.count_include_pad,
          q.divisor_override,
          pixel_step};
}

BRISK_INLINE int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
BRISK_INLINE int64_t max_i64(int64_t a, int64_t b) { return a > b ? a : b; }

// Along one dim, the windows [lo, hi) whose span of `span` inputs starting at o * stride - pad
// contains input i (i >= 0, pad >= 0): o * stride - pad <= i < o * stride - pad + span.
BRISK_INLINE void windows_covering(int64_t i, int64_t outputs, int64_t span, int64_t stride, int64_t pad, int64_t& lo,
                                   int64_t& hi) {
  int64_t first = i + pad - span + 1;
  lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  hi = min_i64((i + pad) / stride + 1, outputs);
}

// ---- Max pooling: a window's maximum (a NaN wins, a later NaN over an earlier one, as in
// PyTorch) and its position iy * W + ix in the plane. ----

// Whether tap value v replaces the window's maximum so far (T: a type is_nan knows, so
// float or double; 16-bit values are compared as their opmath_t).
template <typename T>
BRISK_INLINE bool max_pool_takes(T v, T best) {
  return (v > best) | is_nan(v);
}

template <typename T>
BRISK_INLINE T max_pool_at(const PoolPlane& p, const T* x, int64_t oy, int64_t ox, int64_t& index) {
  int64_t y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
  int64_t y_end = min_i64(y0 + (p.kernel_h - 1) * p.dil_h + 1, p.in_h);
  int64_t x_end = min_i64(x0 + (p.kernel_w - 1) * p.dil_w + 1, p.in_w);
  // The first taps inside the plane (padding is at most half the window, so one exists).
  if (y0 < 0) y0 += (-y0 + p.dil_h - 1) / p.dil_h * p.dil_h;
  if (x0 < 0) x0 += (-x0 + p.dil_w - 1) / p.dil_w * p.dil_w;
  using Acc = opmath_t<T>;
  Acc best = -std::numeric_limits<Acc>::infinity();
  index = y0 * p.in_w + x0;
  for (int64_t iy = y0; iy < y_end; iy += p.dil_h) {
    for (int64_t ix = x0; ix < x_end; ix += p.dil_w) {
      Acc v = cast<Acc>(x[(iy * p.in_w + ix) * p.pixel_step]);
      if (max_pool_takes(v, best)) {
        best = v;
        index = iy * p.in_w + ix;
      }
    }
  }
  return cast<T>(best);  // exact: best is -inf or a value of T
}

// ---- Average pooling, as PyTorch: the window is clipped to the padded plane for the
// divisor when padding counts, and to the plane for the sum. ----

struct AvgWindow {
  int64_t y0, y1, x0, x1;
  int64_t divisor;
};

BRISK_INLINE AvgWindow avg_window(const PoolPlane& p, int64_t oy, int64_t ox) {
  int64_t y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
  int64_t y1 = min_i64(y0 + p.kernel_h, p.in_h + p.pad_h);
  int64_t x1 = min_i64(x0 + p.kernel_w, p.in_w + p.pad_w);
  int64_t padded_size = (y1 - y0) * (x1 - x0);
  y0 = max_i64(y0, 0);
  x0 = max_i64(x0, 0);
  y1 = min_i64(y1, p.in_h);
  x1 = min_i64(x1, p.in_w);
  int64_t divisor = p.divisor_override ? p.divisor_override : p.count_include_pad ? padded_size : (y1 - y0) * (x1 - x0);
  return {y0, y1, x0, x1, divisor};
}

template <typename T>
BRISK_INLINE T avg_pool_at(const PoolPlane& p, const T* x, int64_t oy, int64_t ox) {
  AvgWindow w = avg_window(p, oy, ox);
  if (w.y0 >= w.y1 || w.x0 >= w.x1) return T(0);
  using Acc = opmath_t<T>;
  Acc sum = 0;
  for (int64_t iy = w.y0; iy < w.y1; ++iy) {
    for (int64_t ix = w.x0; ix < w.x1; ++ix) sum += cast<Acc>(x[(iy * p.in_w + ix) * p.pixel_step]);
  }
  return cast<T>(sum / static_cast<Acc>(w.divisor));
}

template <typename T>
BRISK_INLINE T avg_pool_backward_at(const PoolPlane& p, const T* grad_out, int64_t iy, int64_t ix) {
  int64_t y_lo, y_hi, x_lo, x_hi;
  windows_covering(iy, p.out_h, p.kernel_h, p.stride_h, p.pad_h, y_lo, y_hi);
  windows_covering(ix, p.out_w, p.kernel_w, p.stride_w, p.pad_w, x_lo, x_hi);
  using Acc = opmath_t<T>;
  Acc sum = 0;
  for (int64_t oy = y_lo; oy < y_hi; ++oy) {
    for (int64_t ox = x_lo; ox < x_hi; ++ox) {
      sum += cast<Acc>(grad_out[(oy * p.out_w + ox) * p.pixel_step]) / static_cast<Acc>(avg_window(p, oy, ox).divisor);
    }
  }
  return cast<T>(sum);
}

// ---- Adaptive average pooling: output i averages inputs [bin_start, bin_end) of its dim.
// Input i lies in the bins [bin_start(i, in, out), bin_end(i, in, out)) (the same formulas
// with the sizes swapped), which the backward gathers from. ----

BRISK_INLINE int64_t bin_start(int64_t i, int64_t size, int64_t bins) { return (i * size) / bins; }
BRISK_INLINE int64_t bin_end(int64_t i, int64_t size, int64_t bins) { return ((i + 1) * size + bins - 1) / bins; }

template <typename T>
BRISK_INLINE T adaptive_avg_pool_at(const PoolPlane& p, const T* x, int64_t oy, int64_t ox) {
  int64_t y0 = bin_start(oy, p.in_h, p.out_h), y1 = bin_end(oy, p.in_h, p.out_h);
  int64_t x0 = bin_start(ox, p.in_w, p.out_w), x1 = bin_end(ox, p.in_w, p.out_w);
  using Acc = opmath_t<T>;
  Acc sum = 0;
  for (int64_t iy = y0; iy < y1; ++iy) {
    for (int64_t ix = x0; ix < x1; ++ix) sum += cast<Acc>(x[(iy * p.in_w + ix) * p.pixel_step]);
  }
  return cast<T>(sum / static_cast<Acc>((y1 - y0) * (x1 - x0)));
}

template <typename T>
BRISK_INLINE T adaptive_avg_pool_backward_at(const PoolPlane& p, const T* grad_out, int64_t iy, int64_t ix) {
  int64_t y_lo = bin_start(iy, p.out_h, p.in_h), y_hi = bin_end(iy, p.out_h, p.in_h);
  int64_t x_lo = bin_start(ix, p.out_w, p.in_w), x_hi = bin_end(ix, p.out_w, p.in_w);
  using Acc = opmath_t<T>;
  Acc sum = 0;
  for (int64_t oy = y_lo; oy < y_hi; ++oy) {
    int64_t rows = bin_end(oy, p.in_h, p.out_h) - bin_start(oy, p.in_h, p.out_h);
    for (int64_t ox = x_lo; ox < x_hi; ++ox) {
      int64_t cols = bin_end(ox, p.in_w, p.out_w) - bin_start(ox, p.in_w, p.out_w);
      sum += cast<Acc>(grad_out[(oy * p.out_w + ox) * p.pixel_step]) / static_cast<Acc>(rows * cols);
    }
  }
  return cast<T>(sum);
}

}  // namespace brisk::functors
