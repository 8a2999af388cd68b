// Max, average and adaptive average pooling on the CPU. The per-element arithmetic is
// tensor/functors/pool.h, which the CUDA kernels run too. In NCHW memory planes (one image
// channel [H, W]) are split over threads and each element of a plane is computed in turn; in
// channels_last memory pixels are split over threads and each pixel's channels, adjacent in
// memory, are computed in turn. Average gradients gather per input element, so nothing is
// zeroed first or written twice.
#include <algorithm>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/float32_compute.h"
#include "tensor/dispatch.h"
#include "tensor/functors/pool.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

using functors::PoolPlane;

// Whether a pooling op's [N, C, H, W] tensors (all contiguous, or all channels_last: the
// backend's contract) are in channels_last memory: when one of `a` and `b` is not contiguous.
// (A tensor can be both, as [N, C, 1, 1]; then its memory is the same either way.)
bool channels_last(const Tensor& a, const Tensor& b) { return !(a.is_contiguous() && b.is_contiguous()); }

// The plane geometry of a pooling op from its (batched) input and output.
PoolPlane plane_of(const Tensor& in, const Tensor& out, const Pool2dParams& q = {}) {
  return functors::pool_plane(q, in.size(2), in.size(3), out.size(2), out.size(3),
                              channels_last(in, out) ? in.size(1) : 1);
}

int64_t plane_count(const Tensor& t) { return t.size(0) * t.size(1); }

// Calls f(plane) for each of `planes` planes, split over threads in chunks of at least ~32K
// window visits (`work` per plane).
template <typename F>
void for_each_plane(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work)), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) f(plane);
  });
}

// Calls f(plane, y, x) for every element [rows, cols] of `planes` planes (for_each_plane,
// `work` per element).
template <typename F>
void for_each_element(int64_t planes, int64_t rows, int64_t cols, int64_t work, const F& f) {
  for_each_plane(planes, rows * cols * work, [&](int64_t plane) {
    for (int64_t y = 0; y < rows; ++y) {
      for (int64_t x = 0; x < cols; ++x) f(plane, y, x);
    }
  });
}

// Calls f(n, y, x) for every pixel [rows, cols] of `images` images, split over threads
// (`work` per pixel: its channels times the window visits of each).
template <typename F>
void for_each_pixel(int64_t images, int64_t rows, int64_t cols, int64_t work, const F& f) {
  const int64_t pixels = rows * cols;
  parallel_for(0, images * pixels, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work)), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) f(i / pixels, (i % pixels) / cols, i % cols);
  });
}

// Input elements per adaptive bin, roughly (for the thread grain).
int64_t adaptive_work(const PoolPlane& p) {
  return (p.in_h / std::max<int64_t>(p.out_h, 1) + 1) * (p.in_w / std::max<int64_t>(p.out_w, 1) + 1);
}

// One direction of an average pooling: to[n, y, x] = at(plane n of from, y, x) for every
// element of `to` ([N, C, H, W]; `work` window visits each), the forward (to = output, from =
// input) or the backward (to = grad_input, from = grad_output). bfloat16/float16 compute in
// float32.
template <typename At>
void avg_pool_planes(const char* op, const Tensor& to, const Tensor& from, int64_t work, const At& at) {
  if (is_reduced_float(to.dtype())) {
    Float32Results results({to});
    avg_pool_planes(op, results[0], as_float32(from), work, at);
    return results.write_back();
  }
  dispatch(TypeList<float, double>{}, to.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = from.data_ptr<T>();
    T* dst = to.data_ptr<T>();
    int64_t rows = to.size(2), cols = to.size(3), from_plane = from.size(2) * from.size(3);
    if (channels_last(to, from)) {
      const int64_t channels = to.size(1);
      for_each_pixel(to.size(0), rows, cols, channels * work, [&](int64_t n, int64_t y, int64_t x) {
        T* out = dst + ((n * rows + y) * cols + x) * channels;
        const T* image = src + n * from_plane * channels;
        for (int64_t c = 0; c < channels; ++c) out[c] = at(image + c, y, x);
      });
      return;
    }
    for_each_element(plane_count(to), rows, cols, work, [&](int64_t n, int64_t y, int64_t x) {
      dst[(n * rows + y) * cols + x] = at(src + n * from_plane, y, x);
    });
  });
}

// max_pool_at for windows without padding or dilation (the usual pooling layer), one plane
// at a time, without data-dependent branches: the general case's per-tap branch is
// mispredicted about every other tap on real activations, which made pooling cost as much
// as a convolution. The argmax moves by a mask, and the maximum is read back from it.
template <typename T>
void max_pool_plane_dense(const PoolPlane& p, const T* __restrict x, T* __restrict y, int64_t* __restrict idx) {
  const int64_t out_h = p.out_h, out_w = p.out_w, in_w = p.in_w;
  const int64_t kernel_h = p.kernel_h, kernel_w = p.kernel_w, stride_h = p.stride_h, stride_w = p.stride_w;
  for (int64_t oy = 0; oy < out_h; ++oy) {
    for (int64_t ox = 0; ox < out_w; ++ox) {
      const int64_t first = oy * stride_h * in_w + ox * stride_w;
      int64_t at = first;
      for (int64_t ky = 0; ky < kernel_h; ++ky) {
        for (int64_t kx = 0; kx < kernel_w; ++kx) {
          const int64_t i = first + ky * in_w + kx;
          const int64_t takes = -static_cast<int64_t>(functors::max_pool_takes(x[i], x[at]));
          at ^= (at ^ i) & takes;
        }
      }
      y[oy * out_w + ox] = x[at];
      idx[oy * out_w + ox] = at;
    }
  }
}

// The 2x2 window with stride 2 (the commonest pooling layer) on planes at least kRowMin
// outputs wide: a row of outputs at a time in vector lanes, the window's four taps as
// strided loads, about twice as fast as max_pool_plane_dense there (narrower rows leave the
// lanes mostly empty, and the dense form wins). Taps are numbered 0..3 row-major.
constexpr int64_t kRowMin = 8;

template <typename T>
void max_pool_plane_2x2(const PoolPlane& p, const T* __restrict x, T* __restrict y, int64_t* __restrict idx) {
  constexpr int64_t kChunk = 64;
  const int64_t in_w = p.in_w, out_w = p.out_w;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    const T* __restrict top = x + 2 * oy * in_w;
    const T* __restrict bottom = top + in_w;
    for (int64_t ox0 = 0; ox0 < out_w; ox0 += kChunk) {
      const int64_t n = std::min(kChunk, out_w - ox0);
      T best[kChunk];
      int32_t tap[kChunk];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        const int64_t ix = 2 * (ox0 + j);
        T b = top[ix], v = top[ix + 1];
        int32_t t = 0;
        bool takes = functors::max_pool_takes(v, b);
        b = takes ? v : b;
        t = takes ? 1 : t;
        v = bottom[ix];
        takes = functors::max_pool_takes(v, b);
        b = takes ? v : b;
        t = takes ? 2 : t;
        v = bottom[ix + 1];
        takes = functors::max_pool_takes(v, b);
        best[j] = takes ? v : b;
        tap[j] = takes ? 3 : t;
      }
      for (int64_t j = 0; j < n; ++j) {
        y[oy * out_w + ox0 + j] = best[j];
        idx[oy * out_w + ox0 + j] = (2 * oy + (tap[j] >> 1)) * in_w + 2 * (ox0 + j) + (tap[j] & 1);
      }
    }
  }
}

}  // namespace

void CpuBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& params) {
  if (is_reduced_float(input.dtype())) {
    Float32Results results({out});
    max_pool2d(results[0], indices, as_float32(input), params);
    return results.write_back();
  }
  PoolPlane p = plane_of(input, out, params);
  dispatch(TypeList<float, double>{}, input.dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input.data_ptr<T>();
    T* y = out.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
    int64_t window = p.kernel_h * p.kernel_w;
    if (p.pixel_step != 1) {  // channels_last
      const int64_t channels = p.pixel_step;
      for_each_pixel(out.size(0), p.out_h, p.out_w, channels * window, [&](int64_t n, int64_t oy, int64_t ox) {
        const int64_t o = ((n * p.out_h + oy) * p.out_w + ox) * channels;
        const T* image = x + n * in_plane * channels;
        for (int64_t c = 0; c < channels; ++c) y[o + c] = functors::max_pool_at(p, image + c, oy, ox, idx[o + c]);
      });
      return;
    }
    if (p.pad_h == 0 && p.pad_w == 0 && p.dil_h == 1 && p.dil_w == 1) {
      const bool two_by_two =
          p.kernel_h == 2 && p.kernel_w == 2 && p.stride_h == 2 && p.stride_w == 2 && p.out_w >= kRowMin;
      for_each_plane(plane_count(out), out_plane * window, [&](int64_t n) {
        if (two_by_two) {
          max_pool_plane_2x2(p, x + n * in_plane, y + n * out_plane, idx + n * out_plane);
        } else {
          max_pool_plane_dense(p, x + n * in_plane, y + n * out_plane, idx + n * out_plane);
        }
      });
      return;
    }
    for_each_element(plane_count(out), p.out_h, p.out_w, window, [&](int64_t n, int64_t oy, int64_t ox) {
      int64_t o = n * out_plane + oy * p.out_w + ox;
      y[o] = functors::max_pool_at(p, x + n * in_plane, oy, ox, idx[o]);
    });
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  if (is_reduced_float(grad_input.dtype())) {
    Float32Results results({grad_input});
    max_pool2d_backward(results[0], as_float32(grad_out), indices);
    return results.write_back();
  }
  PoolPlane p = plane_of(grad_input, grad_out);
  // Without the window geometry (not passed here) there is nothing to gather from: each
  // plane scatters its outputs onto their argmax, in order.
  dispatch(TypeList<float, double>{}, grad_input.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* go = grad_out.data_ptr<T>();
    const int64_t* idx = indices.data_ptr<int64_t>();
    T* gi = grad_input.data_ptr<T>();
    int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
    if (p.pixel_step != 1) {  // channels_last: each image in turn, its outputs in order as above
      const int64_t channels = p.pixel_step;
      for_each_plane(grad_input.size(0), out_plane * channels, [&](int64_t n) {
        T* image = gi + n * in_plane * channels;
        std::fill(image, image + in_plane * channels, T(0));
        for (int64_t o = n * out_plane * channels; o < (n + 1) * out_plane * channels; ++o) {
          if (idx[o] >= 0 && idx[o] < in_plane) image[idx[o] * channels + o % channels] += go[o];
        }
      });
      return;
    }
    for_each_plane(plane_count(grad_input), out_plane, [&](int64_t n) {
      T* plane = gi + n * in_plane;
      std::fill(plane, plane + in_plane, T(0));
      for (int64_t o = n * out_plane; o < (n + 1) * out_plane; ++o) {
        // A window whose dilated taps all miss the plane has no maximum and an index outside it.
        if (idx[o] >= 0 && idx[o] < in_plane) plane[idx[o]] += go[o];
      }
    });
  });
}

void CpuBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) {
  PoolPlane p = plane_of(input, out, params);
  avg_pool_planes("avg_pool2d", out, input, p.kernel_h * p.kernel_w,
                  [&](const auto* x, int64_t oy, int64_t ox) { return functors::avg_pool_at(p, x, oy, ox); });
}

void CpuBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) {
  PoolPlane p = plane_of(grad_input, grad_out, params);
  avg_pool_planes("avg_pool2d_backward", grad_input, grad_out, 4, [&](const auto* go, int64_t iy, int64_t ix) {
    return functors::avg_pool_backward_at(p, go, iy, ix);
  });
}

void CpuBackend::adaptive_avg_pool2d(const Tensor& out, const Tensor& input) {
  PoolPlane p = plane_of(input, out);
  avg_pool_planes("adaptive_avg_pool2d", out, input, adaptive_work(p),
                  [&](const auto* x, int64_t oy, int64_t ox) { return functors::adaptive_avg_pool_at(p, x, oy, ox); });
}

void CpuBackend::adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) {
  PoolPlane p = plane_of(grad_input, grad_out);
  avg_pool_planes("adaptive_avg_pool2d_backward", grad_input, grad_out, 4, [&](const auto* go, int64_t iy, int64_t ix) {
    return functors::adaptive_avg_pool_backward_at(p, go, iy, ix);
  });
}

}  // namespace brisk::cpu
