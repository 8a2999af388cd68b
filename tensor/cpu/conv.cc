// conv2d on the CPU: float32 through oneDNN (onednn_conv.h); float64, which oneDNN lacks, and
// calls from inside a parallel region as im2col + GEMM, here: each image's receptive fields
// are unfolded into a column matrix [C/groups * KH * KW, OH * OW], so that the convolution of
// one group is one Eigen product with the weight [OC/groups, C/groups * KH * KW]. The backward runs the same
// unfolding for the weight gradient and the transposed product folded back (col2im) for the
// input gradient. 1x1 convolutions with unit stride and no padding skip the unfolding.
//
// Threads split the batch (each with its own column buffer, Eigen single-threaded inside);
// a batch too small to split leaves the threads to Eigen within each product.
#include <Eigen/Core>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/cpu/float32_compute.h"
#include "tensor/cpu/onednn_conv.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using Map = Eigen::Map<RowMatrix<T>>;
template <typename T>
using ConstMap = Eigen::Map<const RowMatrix<T>>;

struct ConvShape {
  int64_t batch, channels, height, width;  // input
  int64_t out_channels, kernel_h, kernel_w;
  int64_t out_h, out_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  int64_t groups;

  int64_t group_channels() const { return channels / groups; }
  int64_t group_out_channels() const { return out_channels / groups; }
  // Rows of one group's column matrix.
  int64_t col_rows() const { return group_channels() * kernel_h * kernel_w; }
  int64_t out_plane() const { return out_h * out_w; }
  int64_t in_plane() const { return height * width; }
  bool pointwise() const {
    return kernel_h == 1 && kernel_w == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 && pad_w == 0;
  }
};

ConvShape conv_shape(const Tensor& input, const Tensor& weight, const Tensor& out, const Conv2dParams& p) {
  return {input.size(0),  input.size(1), input.size(2), input.size(3), weight.size(0), weight.size(2),
          weight.size(3), out.size(2),   out.size(3),   p.stride[0],   p.stride[1],    p.padding[0],
          p.padding[1],   p.dilation[0], p.dilation[1], p.groups};
}

// The output columns x in [lo, hi) whose input column x * stride + offset lies in [0, width).
inline void valid_range(int64_t offset, int64_t stride, int64_t width, int64_t out_w, int64_t& lo, int64_t& hi) {
  lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  hi = width - offset <= 0 ? 0 : std::min(out_w, (width - offset + stride - 1) / stride);
  lo = std::min(lo, hi);
}

// Unfolds one group of one image, in [C/groups, H, W], into col [C/groups * KH * KW, OH * OW].
template <typename T>
void im2col(const ConvShape& s, const T* in, T* col) {
  const int64_t plane = s.out_plane();
  for (int64_t c = 0; c < s.group_channels(); ++c) {
    const T* channel = in + c * s.in_plane();
    for (int64_t ki = 0; ki < s.kernel_h; ++ki) {
      for (int64_t kj = 0; kj < s.kernel_w; ++kj) {
        T* row = col + ((c * s.kernel_h + ki) * s.kernel_w + kj) * plane;
        const int64_t x_offset = kj * s.dil_w - s.pad_w;
        int64_t lo, hi;
        valid_range(x_offset, s.stride_w, s.width, s.out_w, lo, hi);
        for (int64_t oy = 0; oy < s.out_h; ++oy) {
          T* dst = row + oy * s.out_w;
          const int64_t y = oy * s.stride_h - s.pad_h + ki * s.dil_h;
          if (y < 0 || y >= s.height) {
            std::fill(dst, dst + s.out_w, T(0));
            continue;
          }
          const T* src = channel + y * s.width;
          std::fill(dst, dst + lo, T(0));
          if (s.stride_w == 1) {
            std::memcpy(dst + lo, src + lo + x_offset, (hi - lo) * sizeof(T));
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = src[ox * s.stride_w + x_offset];
          }
          std::fill(dst + hi, dst + s.out_w, T(0));
        }
      }
    }
  }
}

// The adjoint of im2col: adds each column entry back onto the input position it came from.
// `in` [C/groups, H, W] must be zeroed by the caller.
template <typename T>
void col2im(const ConvShape& s, const T* col, T* in) {
  const int64_t plane = s.out_plane();
  for (int64_t c = 0; c < s.group_channels(); ++c) {
    T* channel = in + c * s.in_plane();
    for (int64_t ki = 0; ki < s.kernel_h; ++ki) {
      for (int64_t kj = 0; kj < s.kernel_w; ++kj) {
        const T* row = col + ((c * s.kernel_h + ki) * s.kernel_w + kj) * plane;
        const int64_t x_offset = kj * s.dil_w - s.pad_w;
        int64_t lo, hi;
        valid_range(x_offset, s.stride_w, s.width, s.out_w, lo, hi);
        for (int64_t oy = 0; oy < s.out_h; ++oy) {
          const int64_t y = oy * s.stride_h - s.pad_h + ki * s.dil_h;
          if (y < 0 || y >= s.height) continue;
          const T* src = row + oy * s.out_w;
          T* dst = channel + y * s.width;
          for (int64_t ox = lo; ox < hi; ++ox) dst[ox * s.stride_w + x_offset] += src[ox];
        }
      }
    }
  }
}

// Images per parallel chunk: 1 when the batch can feed every thread, else the whole batch
// (one chunk, so Eigen threads inside each product).
int64_t batch_grain(int64_t batch) { return batch >= get_num_threads() ? 1 : batch; }

template <typename T>
void conv2d_forward(const ConvShape& s, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t rows = s.col_rows(), plane = s.out_plane(), ocg = s.group_out_channels();
  parallel_for(0, s.batch, batch_grain(s.batch), [&](int64_t lo, int64_t hi) {
    std::vector<T> col(s.pointwise() ? 0 : rows * plane);
    for (int64_t n = lo; n < hi; ++n) {
      for (int64_t g = 0; g < s.groups; ++g) {
        const T* x = in + (n * s.channels + g * s.group_channels()) * s.in_plane();
        const T* cols = x;
        if (!s.pointwise()) {
          im2col(s, x, col.data());
          cols = col.data();
        }
        Map<T> y(out + (n * s.out_channels + g * ocg) * plane, ocg, plane);
        y.noalias() = ConstMap<T>(weight + g * ocg * rows, ocg, rows) * ConstMap<T>(cols, rows, plane);
        if (bias != nullptr) {
          for (int64_t o = 0; o < ocg; ++o) y.row(o).array() += bias[g * ocg + o];
        }
      }
    }
  });
}

template <typename T>
void conv2d_backward_impl(const ConvShape& s, const T* grad_out, const T* in, const T* weight, T* grad_in,
                          T* grad_weight, T* grad_bias) {
  const int64_t rows = s.col_rows(), plane = s.out_plane(), ocg = s.group_out_channels();
  const int64_t weight_numel = s.out_channels * rows;
  if (grad_weight != nullptr) std::fill(grad_weight, grad_weight + weight_numel, T(0));
  if (grad_bias != nullptr) std::fill(grad_bias, grad_bias + s.out_channels, T(0));
  std::mutex merge;
  parallel_for(0, s.batch, batch_grain(s.batch), [&](int64_t lo, int64_t hi) {
    std::vector<T> col(s.pointwise() ? 0 : rows * plane);
    // Each chunk sums its images' weight and bias gradients privately, then merges once.
    std::vector<T> gw(grad_weight != nullptr ? weight_numel : 0, T(0));
    std::vector<T> gb(grad_bias != nullptr ? s.out_channels : 0, T(0));
    for (int64_t n = lo; n < hi; ++n) {
      if (grad_in != nullptr) {
        T* gi = grad_in + n * s.channels * s.in_plane();
        std::fill(gi, gi + s.channels * s.in_plane(), T(0));
      }
      for (int64_t g = 0; g < s.groups; ++g) {
        const int64_t in_offset = (n * s.channels + g * s.group_channels()) * s.in_plane();
        ConstMap<T> dy(grad_out + (n * s.out_channels + g * ocg) * plane, ocg, plane);
        if (grad_bias != nullptr) {
          for (int64_t o = 0; o < ocg; ++o) gb[g * ocg + o] += dy.row(o).sum();
        }
        if (grad_weight != nullptr) {
          const T* cols = in + in_offset;
          if (!s.pointwise()) {
            im2col(s, in + in_offset, col.data());
            cols = col.data();
          }
          Map<T>(gw.data() + g * ocg * rows, ocg, rows).noalias() += dy * ConstMap<T>(cols, rows, plane).transpose();
        }
        if (grad_in != nullptr) {
          ConstMap<T> w(weight + g * ocg * rows, ocg, rows);
          if (s.pointwise()) {
            Map<T>(grad_in + in_offset, rows, plane).noalias() = w.transpose() * dy;
          } else {
            Map<T>(col.data(), rows, plane).noalias() = w.transpose() * dy;
            col2im(s, col.data(), grad_in + in_offset);
          }
        }
      }
    }
    std::lock_guard<std::mutex> lock(merge);
    for (size_t i = 0; i < gw.size(); ++i) grad_weight[i] += gw[i];
    for (size_t i = 0; i < gb.size(); ++i) grad_bias[i] += gb[i];
  });
}

}  // namespace

void CpuBackend::conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Conv2dParams& params) {
  if (onednn_conv2d_applies(input)) return onednn_conv2d(out, input, weight, bias, params);
  if (channels_last_call(input, weight, out)) {
    // The im2col kernels read NCHW: float64 (tests) and nested calls stage through it.
    Tensor result = native::empty(out.sizes(), out.options()), dst = out;
    conv2d(result, native::contiguous(input), native::contiguous(weight), bias, params);
    native::copy_(dst, result);
    return;
  }
  if (is_reduced_float(input.dtype())) {
    Float32Results results({out});
    conv2d(results[0], as_float32(input), as_float32(weight), as_float32(bias), params);
    results.write_back();
    return;
  }
  ConvShape s = conv_shape(input, weight, out, params);
  dispatch(TypeList<float, double>{}, input.dtype(), "conv2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv2d_forward<T>(s, input.data_ptr<T>(), weight.data_ptr<T>(), data_or_null<T>(bias), out.data_ptr<T>());
  });
}

void CpuBackend::conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                 const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                 const Conv2dParams& params) {
  if (onednn_conv2d_applies(input)) {
    return onednn_conv2d_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, params);
  }
  if (channels_last_call(input, weight, grad_out)) {
    auto staged = [](const Tensor& t) { return t.defined() ? native::empty(t.sizes(), t.options()) : Tensor(); };
    Tensor results[2] = {staged(grad_input), staged(grad_weight)};
    conv2d_backward(results[0], results[1], grad_bias, native::contiguous(grad_out), native::contiguous(input),
                    native::contiguous(weight), params);
    Tensor outputs[2] = {grad_input, grad_weight};
    for (int i = 0; i < 2; ++i) {
      if (outputs[i].defined()) native::copy_(outputs[i], results[i]);
    }
    return;
  }
  if (is_reduced_float(input.dtype())) {
    Float32Results results({grad_input, grad_weight, grad_bias});
    conv2d_backward(results[0], results[1], results[2], as_float32(grad_out), as_float32(input), as_float32(weight),
                    params);
    results.write_back();
    return;
  }
  ConvShape s = conv_shape(input, weight, grad_out, params);
  dispatch(TypeList<float, double>{}, input.dtype(), "conv2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv2d_backward_impl<T>(s, grad_out.data_ptr<T>(), input.data_ptr<T>(), weight.data_ptr<T>(),
                            data_or_null<T>(grad_input), data_or_null<T>(grad_weight), data_or_null<T>(grad_bias));
  });
}

}  // namespace brisk::cpu
