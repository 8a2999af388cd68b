// Max, average and adaptive average pooling on the CPU. Every kernel works plane by plane
// (one image channel [H, W]); planes are split over threads, so a gradient kernel can
// scatter into its own plane without synchronization.
#include <cmath>
#include <limits>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/dispatch.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

struct Planes {
  int64_t count;  // N * C
  int64_t in_h, in_w, out_h, out_w;
};

Planes planes_of(const Tensor& in, const Tensor& out) {
  return {in.size(0) * in.size(1), in.size(2), in.size(3), out.size(2), out.size(3)};
}

// Planes per thread chunk, sized so that a chunk does at least ~32K element visits.
int64_t plane_grain(const Planes& p, int64_t work_per_output) {
  int64_t per_plane = std::max<int64_t>(1, p.out_h * p.out_w * work_per_output);
  return std::max<int64_t>(1, 32768 / per_plane);
}

// PyTorch's average-pooling window for output (oy, ox): the clipped bounds and the divisor.
struct AvgWindow {
  int64_t y0, y1, x0, x1;
  int64_t divisor;
};

inline AvgWindow avg_window(const Planes& p, const Pool2dParams& q, int64_t oy, int64_t ox) {
  int64_t y0 = oy * q.stride[0] - q.padding[0], x0 = ox * q.stride[1] - q.padding[1];
  int64_t y1 = std::min(y0 + q.kernel[0], p.in_h + q.padding[0]);
  int64_t x1 = std::min(x0 + q.kernel[1], p.in_w + q.padding[1]);
  int64_t padded_size = (y1 - y0) * (x1 - x0);
  y0 = std::max<int64_t>(y0, 0);
  x0 = std::max<int64_t>(x0, 0);
  y1 = std::min(y1, p.in_h);
  x1 = std::min(x1, p.in_w);
  int64_t divisor = q.divisor_override    ? q.divisor_override
                    : q.count_include_pad ? padded_size
                                          : (y1 - y0) * (x1 - x0);
  return {y0, y1, x0, x1, divisor};
}

// Adaptive pooling bins: [floor(i * in / out), ceil((i + 1) * in / out)).
inline int64_t bin_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t bin_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

template <typename T>
void max_pool(const Planes& p, const Pool2dParams& q, const T* in, T* out, int64_t* indices) {
  const int64_t kh = q.kernel[0], kw = q.kernel[1], dh = q.dilation[0], dw = q.dilation[1];
  parallel_for(0, p.count, plane_grain(p, kh * kw), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* x = in + plane * p.in_h * p.in_w;
      T* y = out + plane * p.out_h * p.out_w;
      int64_t* idx = indices + plane * p.out_h * p.out_w;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        int64_t y0 = oy * q.stride[0] - q.padding[0];
        int64_t y_first = y0, y_last = std::min(y0 + (kh - 1) * dh + 1, p.in_h);
        while (y_first < 0) y_first += dh;
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          int64_t x0 = ox * q.stride[1] - q.padding[1];
          int64_t x_first = x0, x_last = std::min(x0 + (kw - 1) * dw + 1, p.in_w);
          while (x_first < 0) x_first += dw;
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_index = y_first * p.in_w + x_first;
          for (int64_t iy = y_first; iy < y_last; iy += dh) {
            for (int64_t ix = x_first; ix < x_last; ix += dw) {
              T v = x[iy * p.in_w + ix];
              // A NaN wins and, as in PyTorch, a later NaN wins over an earlier one.
              if (v > best || std::isnan(v)) {
                best = v;
                best_index = iy * p.in_w + ix;
              }
            }
          }
          y[oy * p.out_w + ox] = best;
          idx[oy * p.out_w + ox] = best_index;
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward(const Planes& p, const T* grad_out, const int64_t* indices, T* grad_in) {
  parallel_for(0, p.count, plane_grain(p, 1), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      T* gi = grad_in + plane * p.in_h * p.in_w;
      std::fill(gi, gi + p.in_h * p.in_w, T(0));
      const T* go = grad_out + plane * p.out_h * p.out_w;
      const int64_t* idx = indices + plane * p.out_h * p.out_w;
      for (int64_t i = 0; i < p.out_h * p.out_w; ++i) gi[idx[i]] += go[i];
    }
  });
}

template <typename T>
void avg_pool(const Planes& p, const Pool2dParams& q, const T* in, T* out) {
  parallel_for(0, p.count, plane_grain(p, q.kernel[0] * q.kernel[1]), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* x = in + plane * p.in_h * p.in_w;
      T* y = out + plane * p.out_h * p.out_w;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          AvgWindow w = avg_window(p, q, oy, ox);
          T sum = 0;
          for (int64_t iy = w.y0; iy < w.y1; ++iy) {
            for (int64_t ix = w.x0; ix < w.x1; ++ix) sum += x[iy * p.in_w + ix];
          }
          y[oy * p.out_w + ox] = w.y0 >= w.y1 || w.x0 >= w.x1 ? T(0) : sum / static_cast<T>(w.divisor);
        }
      }
    }
  });
}

template <typename T>
void avg_pool_backward(const Planes& p, const Pool2dParams& q, const T* grad_out, T* grad_in) {
  parallel_for(0, p.count, plane_grain(p, q.kernel[0] * q.kernel[1]), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      T* gi = grad_in + plane * p.in_h * p.in_w;
      std::fill(gi, gi + p.in_h * p.in_w, T(0));
      const T* go = grad_out + plane * p.out_h * p.out_w;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          AvgWindow w = avg_window(p, q, oy, ox);
          T share = go[oy * p.out_w + ox] / static_cast<T>(w.divisor);
          for (int64_t iy = w.y0; iy < w.y1; ++iy) {
            for (int64_t ix = w.x0; ix < w.x1; ++ix) gi[iy * p.in_w + ix] += share;
          }
        }
      }
    }
  });
}

template <typename T>
void adaptive_avg_pool(const Planes& p, const T* in, T* out) {
  int64_t window = (p.in_h / std::max<int64_t>(p.out_h, 1) + 1) * (p.in_w / std::max<int64_t>(p.out_w, 1) + 1);
  parallel_for(0, p.count, plane_grain(p, window), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      const T* x = in + plane * p.in_h * p.in_w;
      T* y = out + plane * p.out_h * p.out_w;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        int64_t y0 = bin_start(oy, p.out_h, p.in_h), y1 = bin_end(oy, p.out_h, p.in_h);
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          int64_t x0 = bin_start(ox, p.out_w, p.in_w), x1 = bin_end(ox, p.out_w, p.in_w);
          T sum = 0;
          for (int64_t iy = y0; iy < y1; ++iy) {
            for (int64_t ix = x0; ix < x1; ++ix) sum += x[iy * p.in_w + ix];
          }
          y[oy * p.out_w + ox] = sum / static_cast<T>((y1 - y0) * (x1 - x0));
        }
      }
    }
  });
}

template <typename T>
void adaptive_avg_pool_backward(const Planes& p, const T* grad_out, T* grad_in) {
  int64_t window = (p.in_h / std::max<int64_t>(p.out_h, 1) + 1) * (p.in_w / std::max<int64_t>(p.out_w, 1) + 1);
  parallel_for(0, p.count, plane_grain(p, window), [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      T* gi = grad_in + plane * p.in_h * p.in_w;
      std::fill(gi, gi + p.in_h * p.in_w, T(0));
      const T* go = grad_out + plane * p.out_h * p.out_w;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        int64_t y0 = bin_start(oy, p.out_h, p.in_h), y1 = bin_end(oy, p.out_h, p.in_h);
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          int64_t x0 = bin_start(ox, p.out_w, p.in_w), x1 = bin_end(ox, p.out_w, p.in_w);
          T share = go[oy * p.out_w + ox] / static_cast<T>((y1 - y0) * (x1 - x0));
          for (int64_t iy = y0; iy < y1; ++iy) {
            for (int64_t ix = x0; ix < x1; ++ix) gi[iy * p.in_w + ix] += share;
          }
        }
      }
    }
  });
}

}  // namespace

void CpuBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                            const Pool2dParams& params) {
  Planes p = planes_of(input, out);
  dispatch(TypeList<float, double>{}, input.dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool<T>(p, params, input.data_ptr<T>(), out.data_ptr<T>(), indices.data_ptr<int64_t>());
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  Planes p = planes_of(grad_input, grad_out);
  dispatch(TypeList<float, double>{}, grad_input.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_backward<T>(p, grad_out.data_ptr<T>(), indices.data_ptr<int64_t>(), grad_input.data_ptr<T>());
  });
}

void CpuBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) {
  Planes p = planes_of(input, out);
  dispatch(TypeList<float, double>{}, input.dtype(), "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool<T>(p, params, input.data_ptr<T>(), out.data_ptr<T>());
  });
}

void CpuBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) {
  Planes p = planes_of(grad_input, grad_out);
  dispatch(TypeList<float, double>{}, grad_input.dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_backward<T>(p, params, grad_out.data_ptr<T>(), grad_input.data_ptr<T>());
  });
}

void CpuBackend::adaptive_avg_pool2d(const Tensor& out, const Tensor& input) {
  Planes p = planes_of(input, out);
  dispatch(TypeList<float, double>{}, input.dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_pool<T>(p, input.data_ptr<T>(), out.data_ptr<T>());
  });
}

void CpuBackend::adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) {
  Planes p = planes_of(grad_input, grad_out);
  dispatch(TypeList<float, double>{}, grad_input.dtype(), "adaptive_avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_pool_backward<T>(p, grad_out.data_ptr<T>(), grad_input.data_ptr<T>());
  });
}

}  // namespace brisk::cpu
