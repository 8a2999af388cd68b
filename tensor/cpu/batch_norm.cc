// Batch normalization on the CPU, forward and backward: float32 and float64, and
// bfloat16/float16 data with float32 statistics and affine parameters (PyTorch's mixed-dtype
// batch norm, what autocast makes of a convolution's output). The input [N, C, S] (S: the
// spatial dims flattened) is read as N runs of S values per channel; channels are split over
// threads and each run is one Eigen array expression, so the loops vectorize. 16-bit data is
// widened once per channel into a float32 copy (one buffer for each thread's share of the
// channels) that the later passes read from cache, and results are rounded as they are
// stored. Per-channel sums are taken per run in opmath_t<T> and added across runs in double.
// The statistics are two-pass (mean, then the squared deviations from it), as accurate as the
// composite they replace; the forward reads the input three times and writes it once, the
// backward reads input and gradient twice. A fused activation (tensor/functors/batch_norm.h)
// is applied as each run is stored, and its gradient as the gradient's runs are read.
// Channels-last inputs take tensor/cpu/batch_norm_channels_last.cc instead.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "tensor/cpu/batch_norm_channels_last.h"
#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/dispatch.h"
#include "tensor/functors/batch_norm.h"
#include "tensor/functors/cast.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

using functors::BatchNormAffine;

template <typename T>
using Run = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRun = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// [N, C, S] of a contiguous input with at least 2 dims.
struct Layout {
  int64_t batch, channels, spatial;

  explicit Layout(const Tensor& input)
      : batch(input.size(0)),
        channels(input.size(1)),
        spatial(input.numel() / std::max<int64_t>(1, batch * channels)) {}
  int64_t count() const { return batch * spatial; }
  // The offset of image n's run of channel c.
  int64_t run(int64_t n, int64_t c) const { return (n * channels + c) * spatial; }
};

// float32 buffers for ChannelRuns and store_run, one set for each thread's share of the
// channels, from the CPU caching allocator (so that a training step maps no new pages); unused
// for float32/float64 data.
struct Scratch {
  Tensor first, second, staged;
};

// `buffer`'s data, made to hold at least n values of P (float or double).
template <typename P>
P* buffer_of(Tensor& buffer, int64_t n) {
  constexpr DType dtype = std::is_same_v<P, double> ? kFloat64 : kFloat32;
  if (!buffer.defined() || buffer.dtype() != dtype || buffer.numel() < n) buffer = native::empty({n}, dtype);
  return buffer.data_ptr<P>();
}
float* float_buffer(Tensor& buffer, int64_t n) { return buffer_of<float>(buffer, n); }

// f(c, scratch) for every channel, channels split over threads when there is enough work.
template <typename F>
void for_each_channel(const Layout& l, const F& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, l.count()));
  parallel_for(0, l.channels, grain, [&](int64_t lo, int64_t hi) {
    Scratch scratch;
    for (int64_t c = lo; c < hi; ++c) f(c, scratch);
  });
}

// One channel's N runs of a [N, C, S] tensor of T as arrays of P = opmath_t<T>: the data in
// place for float32/float64; 16-bit data widened into `widened` (count values).
template <typename T>
class ChannelRuns {
 public:
  using P = opmath_t<T>;

  // Runs of `spatial` values, one after the other from `first`.
  ChannelRuns(const P* first, int64_t spatial) : first_(first), stride_(spatial), spatial_(spatial) {}
  ChannelRuns(const Layout& l, const T* data, int64_t c, Tensor& widened) : spatial_(l.spatial) {
    if constexpr (std::is_same_v<T, P>) {
      first_ = data + l.run(0, c);
      stride_ = l.channels * l.spatial;
    } else {
      P* base = float_buffer(widened, l.count());
      for (int64_t n = 0; n < l.batch; ++n) {
        const T* from = data + l.run(n, c);
        P* to = base + n * l.spatial;
#pragma omp simd
        for (int64_t i = 0; i < l.spatial; ++i) to[i] = static_cast<P>(from[i]);
      }
      first_ = base;
      stride_ = l.spatial;
    }
  }
  ConstRun<P> operator[](int64_t n) const { return ConstRun<P>(first_ + n * stride_, spatial_); }

 private:
  const P* first_;
  int64_t stride_, spatial_;
};

// Stores run values (an Eigen expression in P) at `out`, through `activation`: in place for
// float32/float64 without one, else evaluated into `staged` and rounded.
template <typename T, typename Values>
void store_run(T* out, int64_t size, const Values& values, FusedActivation activation, Tensor& staged) {
  using P = opmath_t<T>;
  if (activation != FusedActivation::None) {
    P* z = buffer_of<P>(staged, size);
    Run<P>(z, size) = values;
    functors::with_activation(activation, [&](auto a) {
      for (int64_t i = 0; i < size; ++i) out[i] = functors::batch_norm_activation<decltype(a)::value, T>(z[i]);
    });
    return;
  }
  if constexpr (std::is_same_v<T, opmath_t<T>>) {
    Run<T>(out, size) = values;
  } else {
    float* rounded = float_buffer(staged, size);
    Run<float>(rounded, size) = values;
    // Through the bits: GCC does not vectorize a loop of struct copies.
#pragma omp simd
    for (int64_t i = 0; i < size; ++i) out[i].bits = T(rounded[i]).bits;
  }
}

// Sum over the channel's runs of f(n) (f returns run n's partial sum).
template <typename F>
double sum_runs(const Layout& l, const F& f) {
  double total = 0;
  for (int64_t n = 0; n < l.batch; ++n) total += static_cast<double>(f(n));
  return total;
}

// Channel c's gradient of z (the activation's input) into `buffer`, [N][S] in P, from the
// gradient g of the activation's output: masked by the saved output (Relu) or at z = x *
// scale + shift recomputed as the forward computed it (Gelu).
template <typename T, typename P = opmath_t<T>>
ChannelRuns<T> pre_activation_grad(const Layout& l, const T* g, const T* out, const ChannelRuns<T>& xs,
                                   const BatchNormAffine<P>& z, int64_t c, FusedActivation activation, Tensor& buffer) {
  P* base = buffer_of<P>(buffer, l.count());
  functors::with_activation(activation, [&](auto a) {
    constexpr FusedActivation kActivation = decltype(a)::value;
    for (int64_t n = 0; n < l.batch; ++n) {
      const T* gn = g + l.run(n, c);
      const T* on = kActivation == FusedActivation::Relu ? out + l.run(n, c) : nullptr;
      ConstRun<P> xn = xs[n];
      P* to = base + n * l.spatial;
      for (int64_t i = 0; i < l.spatial; ++i) {
        const T saved = kActivation == FusedActivation::Relu ? on[i] : T(0);
        to[i] = functors::batch_norm_activation_grad<kActivation, T>(cast<P>(gn[i]), saved, z.at(xn[i]));
      }
    }
  });
  return ChannelRuns<T>(base, l.spatial);
}

template <typename T, typename P = opmath_t<T>>
void forward(const Layout& l, const T* x, const P* weight, const P* bias, P* running_mean, P* running_var,
             bool training, double momentum, double eps, FusedActivation activation, T* y, P* save_mean,
             P* save_invstd) {
  const int64_t s = l.spatial, count = l.count();
  for_each_channel(l, [&](int64_t c, Scratch& scratch) {
    ChannelRuns<T> xs(l, x, c, scratch.first);
    double mean, invstd;
    if (training) {
      mean = sum_runs(l, [&](int64_t n) { return xs[n].sum(); }) / count;
      const P m = static_cast<P>(mean);
      const double var = sum_runs(l, [&](int64_t n) { return (xs[n] - m).square().sum(); }) / count;
      invstd = 1.0 / std::sqrt(var + eps);
      if (running_mean != nullptr) {
        running_mean[c] = static_cast<P>((1 - momentum) * running_mean[c] + momentum * mean);
        const double unbiased = var * count / (count - 1);
        running_var[c] = static_cast<P>((1 - momentum) * running_var[c] + momentum * unbiased);
      }
    } else {
      mean = running_mean[c];
      invstd = 1.0 / std::sqrt(static_cast<double>(running_var[c]) + eps);
    }
    save_mean[c] = static_cast<P>(mean);
    save_invstd[c] = static_cast<P>(invstd);
    const BatchNormAffine<P> z(save_mean[c], save_invstd[c], weight, bias, c);
    for (int64_t n = 0; n < l.batch; ++n) {
      store_run(y + l.run(n, c), s, xs[n] * z.scale + z.shift, activation, scratch.staged);
    }
  });
}

template <typename T, typename P = opmath_t<T>>
void backward(const Layout& l, const T* grad_out, const T* x, const P* weight, const P* bias, const T* out,
              const P* save_mean, const P* save_invstd, bool training, FusedActivation activation, T* grad_input,
              P* grad_weight, P* grad_bias) {
  const int64_t s = l.spatial, count = l.count();
  for_each_channel(l, [&](int64_t c, Scratch& scratch) {
    ChannelRuns<T> xs(l, x, c, scratch.second);
    ChannelRuns<T> gs = activation == FusedActivation::None
                            ? ChannelRuns<T>(l, grad_out, c, scratch.first)
                            : pre_activation_grad(l, grad_out, out, xs,
                                                  BatchNormAffine<P>(save_mean[c], save_invstd[c], weight, bias, c), c,
                                                  activation, scratch.first);
    const P mean = save_mean[c];
    const double invstd = save_invstd[c];
    // sum(g) and sum(g * (x - mean)) over the channel.
    const double sum_g = sum_runs(l, [&](int64_t n) { return gs[n].sum(); });
    const double sum_gx = sum_runs(l, [&](int64_t n) { return (gs[n] * (xs[n] - mean)).sum(); });
    if (grad_weight != nullptr) grad_weight[c] = static_cast<P>(sum_gx * invstd);
    if (grad_bias != nullptr) grad_bias[c] = static_cast<P>(sum_g);
    if (grad_input == nullptr) return;
    // grad_input = a * g + k * (x - mean) + d: in training the batch statistics' own
    // gradients add k = -a * invstd^2 * sum_gx / count and d = -a * sum_g / count.
    const double a = invstd * (weight != nullptr ? weight[c] : 1);
    const double k = training ? -a * invstd * invstd * sum_gx / count : 0;
    const double d = training ? -a * sum_g / count : 0;
    const P ta = static_cast<P>(a), tk = static_cast<P>(k), td = static_cast<P>(d - k * mean);
    for (int64_t n = 0; n < l.batch; ++n) {
      store_run(grad_input + l.run(n, c), s, gs[n] * ta + xs[n] * tk + td, FusedActivation::None, scratch.staged);
    }
  });
}

}  // namespace

void CpuBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                            const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                            const Tensor& running_var, const Tensor& num_batches_tracked, bool training,
                            double momentum, double eps, FusedActivation activation) {
  if (training && num_batches_tracked.defined()) ++*num_batches_tracked.data_ptr<int64_t>();
  if (!input.is_contiguous()) {
    batch_norm_channels_last(out, save_mean, save_invstd, input, weight, bias, running_mean, running_var, training,
                             momentum, eps, activation);
    return;
  }
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using P = opmath_t<T>;
    forward<T>(Layout(input), input.data_ptr<T>(), data_or_null<P>(weight), data_or_null<P>(bias),
               data_or_null<P>(running_mean), data_or_null<P>(running_var), training, momentum, eps, activation,
               out.data_ptr<T>(), save_mean.data_ptr<P>(), save_invstd.data_ptr<P>());
  });
}

void CpuBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                     const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                     const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                     const Tensor& save_invstd, bool training, FusedActivation activation) {
  if (!input.is_contiguous()) {
    batch_norm_backward_channels_last(grad_input, grad_weight, grad_bias, grad_out, input, weight, bias, out, save_mean,
                                      save_invstd, training, activation);
    return;
  }
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using P = opmath_t<T>;
    backward<T>(Layout(input), grad_out.data_ptr<T>(), input.data_ptr<T>(), data_or_null<P>(weight),
                data_or_null<P>(bias), data_or_null<T>(out), save_mean.data_ptr<P>(), save_invstd.data_ptr<P>(),
                training, activation, data_or_null<T>(grad_input), data_or_null<P>(grad_weight),
                data_or_null<P>(grad_bias));
  });
}

}  // namespace brisk::cpu
