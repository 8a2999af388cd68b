// Batch normalization on the CPU, forward and backward, float32 and float64. The input
// [N, C, S] (S: the spatial dims flattened) is read as N runs of S values per channel;
// channels are split over threads and each run is one Eigen array expression, so the loops
// vectorize. Per-channel sums are taken per run in T and added across runs in double. The
// statistics are two-pass (mean, then the squared deviations from it), as accurate as the
// composite they replace; the forward reads the input three times and writes it once, the
// backward reads input and gradient twice.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/dispatch.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

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

// f(c) for every channel, channels split over threads when there is enough work.
template <typename F>
void for_each_channel(const Layout& l, const F& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, l.count()));
  parallel_for(0, l.channels, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) f(c);
  });
}

// Sum over the channel's runs of f(run index n, offset) (f returns that run's partial sum).
template <typename F>
double sum_runs(const Layout& l, int64_t c, const F& f) {
  double total = 0;
  for (int64_t n = 0; n < l.batch; ++n) total += static_cast<double>(f(l.run(n, c)));
  return total;
}

template <typename T>
void forward(const Layout& l, const T* x, const T* weight, const T* bias, T* running_mean, T* running_var,
             bool training, double momentum, double eps, T* y, T* save_mean, T* save_invstd) {
  const int64_t s = l.spatial, count = l.count();
  for_each_channel(l, [&](int64_t c) {
    double mean, invstd;
    if (training) {
      mean = sum_runs(l, c, [&](int64_t o) { return ConstRun<T>(x + o, s).sum(); }) / count;
      const T m = static_cast<T>(mean);
      const double var = sum_runs(l, c, [&](int64_t o) { return (ConstRun<T>(x + o, s) - m).square().sum(); }) / count;
      invstd = 1.0 / std::sqrt(var + eps);
      if (running_mean != nullptr) {
        running_mean[c] = static_cast<T>((1 - momentum) * running_mean[c] + momentum * mean);
        const double unbiased = var * count / (count - 1);
        running_var[c] = static_cast<T>((1 - momentum) * running_var[c] + momentum * unbiased);
      }
    } else {
      mean = running_mean[c];
      invstd = 1.0 / std::sqrt(static_cast<double>(running_var[c]) + eps);
    }
    save_mean[c] = static_cast<T>(mean);
    save_invstd[c] = static_cast<T>(invstd);
    // y = x * scale + shift, the affine parameters folded into the normalization.
    const double scale = invstd * (weight != nullptr ? weight[c] : 1);
    const T a = static_cast<T>(scale);
    const T b = static_cast<T>((bias != nullptr ? bias[c] : 0) - mean * scale);
    for (int64_t n = 0; n < l.batch; ++n) {
      const int64_t o = l.run(n, c);
      Run<T>(y + o, s) = ConstRun<T>(x + o, s) * a + b;
    }
  });
}

template <typename T>
void backward(const Layout& l, const T* grad_out, const T* x, const T* weight, const T* save_mean, const T* save_invstd,
              bool training, T* grad_input, T* grad_weight, T* grad_bias) {
  const int64_t s = l.spatial, count = l.count();
  for_each_channel(l, [&](int64_t c) {
    const T mean = save_mean[c];
    const double invstd = save_invstd[c];
    // sum(g) and sum(g * (x - mean)) over the channel.
    const double sum_g = sum_runs(l, c, [&](int64_t o) { return ConstRun<T>(grad_out + o, s).sum(); });
    const double sum_gx = sum_runs(
        l, c, [&](int64_t o) { return (ConstRun<T>(grad_out + o, s) * (ConstRun<T>(x + o, s) - mean)).sum(); });
    if (grad_weight != nullptr) grad_weight[c] = static_cast<T>(sum_gx * invstd);
    if (grad_bias != nullptr) grad_bias[c] = static_cast<T>(sum_g);
    if (grad_input == nullptr) return;
    // grad_input = a * g + k * (x - mean) + d: in training the batch statistics' own
    // gradients add k = -a * invstd^2 * sum_gx / count and d = -a * sum_g / count.
    const double a = invstd * (weight != nullptr ? weight[c] : 1);
    const double k = training ? -a * invstd * invstd * sum_gx / count : 0;
    const double d = training ? -a * sum_g / count : 0;
    const T ta = static_cast<T>(a), tk = static_cast<T>(k), td = static_cast<T>(d - k * mean);
    for (int64_t n = 0; n < l.batch; ++n) {
      const int64_t o = l.run(n, c);
      Run<T>(grad_input + o, s) = ConstRun<T>(grad_out + o, s) * ta + ConstRun<T>(x + o, s) * tk + td;
    }
  });
}

}  // namespace

void CpuBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                            const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                            const Tensor& running_var, bool training, double momentum, double eps) {
  dispatch(TypeList<float, double>{}, input.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward<T>(Layout(input), input.data_ptr<T>(), data_or_null<T>(weight), data_or_null<T>(bias),
               data_or_null<T>(running_mean), data_or_null<T>(running_var), training, momentum, eps, out.data_ptr<T>(),
               save_mean.data_ptr<T>(), save_invstd.data_ptr<T>());
  });
}

void CpuBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                     const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                     const Tensor& save_mean, const Tensor& save_invstd, bool training) {
  dispatch(TypeList<float, double>{}, input.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward<T>(Layout(input), grad_out.data_ptr<T>(), input.data_ptr<T>(), data_or_null<T>(weight),
                save_mean.data_ptr<T>(), save_invstd.data_ptr<T>(), training, data_or_null<T>(grad_input),
                data_or_null<T>(grad_weight), data_or_null<T>(grad_bias));
  });
}

}  // namespace brisk::cpu
