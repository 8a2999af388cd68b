// Batch normalization on the CPU over channels_last tensors, read as rows of C values (one row
// per image position, [N * H * W, C]). Per-channel sums are taken over fixed blocks of rows
// (in opmath_t<T>, a vector of C accumulators the inner loop runs along), the blocks in
// parallel and their partial sums added in order in double, so the result does not depend on
// the number of threads. As in the NCHW kernels (tensor/cpu/batch_norm.cc) the statistics are
// two-pass and the affine parameters are folded into one scale and shift per channel; the
// elementwise passes run over rows in parallel.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/cpu/batch_norm_channels_last.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/dispatch.h"
#include "tensor/functors/batch_norm.h"
#include "tensor/functors/cast.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

using functors::BatchNormAffine;

constexpr int64_t kRowsPerBlock = 256;

// [rows, C] of a channels_last tensor.
struct Rows {
  int64_t rows, channels;

  explicit Rows(const Tensor& t) : rows(t.numel() / std::max<int64_t>(1, t.size(1))), channels(t.size(1)) {}
  int64_t blocks() const { return (rows + kRowsPerBlock - 1) / kRowsPerBlock; }
};

// Per channel, the sum over every row of f(r, c) (in P), `sums` channels * kSums values:
// sums[k * channels + c] for the k-th of the kSums values f writes (f(r, acc) adds row r's
// values to acc[k * channels + c]).
template <int kSums, typename P, typename F>
std::vector<double> column_sums(const Rows& l, const F& f) {
  const int64_t width = kSums * l.channels;
  std::vector<double> partial(l.blocks() * width);
  parallel_for(0, l.blocks(), 1, [&](int64_t lo, int64_t hi) {
    std::vector<P> acc(width);
    for (int64_t b = lo; b < hi; ++b) {
      std::fill(acc.begin(), acc.end(), P(0));
      const int64_t end = std::min(l.rows, (b + 1) * kRowsPerBlock);
      for (int64_t r = b * kRowsPerBlock; r < end; ++r) f(r, acc.data());
      for (int64_t i = 0; i < width; ++i) partial[b * width + i] = static_cast<double>(acc[i]);
    }
  });
  std::vector<double> sums(width, 0.0);
  for (int64_t b = 0; b < l.blocks(); ++b) {
    for (int64_t i = 0; i < width; ++i) sums[i] += partial[b * width + i];
  }
  return sums;
}

// f(r) for every row, rows split over threads.
template <typename F>
void for_each_row(const Rows& l, const F& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, l.channels));
  parallel_for(0, l.rows, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) f(r);
  });
}

template <typename T, typename P = opmath_t<T>>
void forward(const Rows& l, const T* x, const P* weight, const P* bias, P* running_mean, P* running_var, bool training,
             double momentum, double eps, FusedActivation activation, T* y, P* save_mean, P* save_invstd) {
  const int64_t C = l.channels;
  if (training) {
    const double count = static_cast<double>(l.rows);
    std::vector<double> mean = column_sums<1, P>(l, [&](int64_t r, P* acc) {
      const T* row = x + r * C;
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) acc[c] += cast<P>(row[c]);
    });
    std::vector<P> m(C);
    for (int64_t c = 0; c < C; ++c) m[c] = static_cast<P>(mean[c] /= count);
    std::vector<double> var = column_sums<1, P>(l, [&](int64_t r, P* acc) {
      const T* row = x + r * C;
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) {
        const P d = cast<P>(row[c]) - m[c];
        acc[c] += d * d;
      }
    });
    for (int64_t c = 0; c < C; ++c) {
      var[c] /= count;
      save_mean[c] = static_cast<P>(mean[c]);
      save_invstd[c] = static_cast<P>(1.0 / std::sqrt(var[c] + eps));
      if (running_mean != nullptr) {
        running_mean[c] = static_cast<P>((1 - momentum) * running_mean[c] + momentum * mean[c]);
        const double unbiased = var[c] * count / (count - 1);
        running_var[c] = static_cast<P>((1 - momentum) * running_var[c] + momentum * unbiased);
      }
    }
  } else {
    for (int64_t c = 0; c < C; ++c) {
      save_mean[c] = running_mean[c];
      save_invstd[c] = static_cast<P>(1.0 / std::sqrt(static_cast<double>(running_var[c]) + eps));
    }
  }
  std::vector<P> scale(C), shift(C);
  for (int64_t c = 0; c < C; ++c) {
    const BatchNormAffine<P> z(save_mean[c], save_invstd[c], weight, bias, c);
    scale[c] = z.scale;
    shift[c] = z.shift;
  }
  functors::with_activation(activation, [&](auto a) {
    for_each_row(l, [&](int64_t r) {
      const T* in = x + r * C;
      T* o = y + r * C;
      for (int64_t c = 0; c < C; ++c) {
        o[c] = functors::batch_norm_activation<decltype(a)::value, T>(cast<P>(in[c]) * scale[c] + shift[c]);
      }
    });
  });
}

template <FusedActivation kActivation, typename T, typename P = opmath_t<T>>
void backward(const Rows& l, const T* grad_out, const T* x, const P* weight, const P* bias, const T* out,
              const P* save_mean, const P* save_invstd, bool training, T* grad_input, P* grad_weight, P* grad_bias) {
  const int64_t C = l.channels;
  std::vector<BatchNormAffine<P>> affine;
  for (int64_t c = 0; c < C; ++c) affine.emplace_back(save_mean[c], save_invstd[c], weight, bias, c);
  // The gradient of z, the activation's input, at row r and channel c.
  auto grad_z = [&](int64_t r, int64_t c) {
    const int64_t i = r * C + c;
    const T saved = kActivation == FusedActivation::Relu ? out[i] : T(0);
    return functors::batch_norm_activation_grad<kActivation, T>(cast<P>(grad_out[i]), saved,
                                                                affine[c].at(cast<P>(x[i])));
  };
  // sums[c] = sum(g), sums[C + c] = sum(g * (x - mean)).
  std::vector<double> sums = column_sums<2, P>(l, [&](int64_t r, P* acc) {
    for (int64_t c = 0; c < C; ++c) {
      const P g = grad_z(r, c);
      acc[c] += g;
      acc[C + c] += g * (cast<P>(x[r * C + c]) - save_mean[c]);
    }
  });
  const double count = static_cast<double>(l.rows);
  std::vector<P> a(C), k(C), d(C);
  for (int64_t c = 0; c < C; ++c) {
    const double sum_g = sums[c], sum_gx = sums[C + c], invstd = save_invstd[c];
    if (grad_weight != nullptr) grad_weight[c] = static_cast<P>(sum_gx * invstd);
    if (grad_bias != nullptr) grad_bias[c] = static_cast<P>(sum_g);
    // As the NCHW kernel: grad_input = a * g + k * (x - mean) + d.
    const double ac = invstd * (weight != nullptr ? weight[c] : 1);
    const double kc = training ? -ac * invstd * invstd * sum_gx / count : 0;
    const double dc = training ? -ac * sum_g / count : 0;
    a[c] = static_cast<P>(ac);
    k[c] = static_cast<P>(kc);
    d[c] = static_cast<P>(dc - kc * save_mean[c]);
  }
  if (grad_input == nullptr) return;
  for_each_row(l, [&](int64_t r) {
    for (int64_t c = 0; c < C; ++c) {
      grad_input[r * C + c] = cast<T>(grad_z(r, c) * a[c] + cast<P>(x[r * C + c]) * k[c] + d[c]);
    }
  });
}

}  // namespace

void batch_norm_channels_last(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
                              const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                              const Tensor& running_var, bool training, double momentum, double eps,
                              FusedActivation activation) {
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using P = opmath_t<T>;
    forward<T>(Rows(input), input.data_ptr<T>(), data_or_null<P>(weight), data_or_null<P>(bias),
               data_or_null<P>(running_mean), data_or_null<P>(running_var), training, momentum, eps, activation,
               out.data_ptr<T>(), save_mean.data_ptr<P>(), save_invstd.data_ptr<P>());
  });
}

void batch_norm_backward_channels_last(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                       const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                       const Tensor& save_invstd, bool training, FusedActivation activation) {
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using P = opmath_t<T>;
    functors::with_activation(activation, [&](auto a) {
      backward<decltype(a)::value, T>(Rows(input), grad_out.data_ptr<T>(), input.data_ptr<T>(),
                                      data_or_null<P>(weight), data_or_null<P>(bias), data_or_null<T>(out),
                                      save_mean.data_ptr<P>(), save_invstd.data_ptr<P>(), training,
                                      data_or_null<T>(grad_input), data_or_null<P>(grad_weight),
                                      data_or_null<P>(grad_bias));
    });
  });
}

}  // namespace brisk::cpu
