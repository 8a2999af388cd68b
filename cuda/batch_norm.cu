// CudaBackend::batch_norm and batch_norm_backward over contiguous NCHW or channels_last
// tensors of float32, float64, bfloat16 and float16 (float32 [C] tensors for the 16-bit
// ones), with the fused activation of tensor/functors/batch_norm.h. Three launches each way
// in training (docs/cuda_kernels.md, "Batch norm"):
//   1. per-channel partial folds: a grid of (channel tiles, splits of the N * H * W values);
//      each block folds its split of its channels into a float64 workspace [splits, 2, C]:
//      forward the split's mean and squared deviations from it (two passes over the split),
//      backward sum(dy) and sum(dy * (x - mean)), dy the activation's input gradient;
//   2. one thread per channel combines the splits in order (deterministic; forward with
//      Chan et al.'s parallel variance), writes the [C] results (save_mean, save_invstd, the
//      running statistics; grad_weight, grad_bias) and the per-channel coefficients of 3;
//   3. one elementwise pass: out = activation(x * scale + shift), or grad_input = a * dy +
//      k * x + d.
// Evaluation forward is the elementwise pass alone. Index arithmetic is 32-bit: tensors up to
// 2^31 - 1 elements.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/block_reduce.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/functors/batch_norm.h"
#include "tensor/functors/cast.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

using functors::BatchNormAffine;

constexpr int kThreads = 512;
constexpr int kElementThreads = 256;

// Where channel c's i-th value (of N * H * W) lies: NCHW ((i / S) * C + c) * S + i % S;
// channels_last i * C + c.
template <bool kChannelsLast>
struct Geometry {
  uint32_t channels, spatial, count;  // C, S = H * W (or the flattened dims after C), N * S
  __device__ __forceinline__ uint32_t offset(uint32_t c, uint32_t i) const {
    if constexpr (kChannelsLast) {
      return i * channels + c;
    } else {
      return (i / spatial * channels + c) * spatial + i % spatial;
    }
  }
  // The channel of the element at `offset`.
  __device__ __forceinline__ uint32_t channel_at(uint32_t offset) const {
    return kChannelsLast ? offset % channels : offset / spatial % channels;
  }
};

// The blocks of step 1: blockDim.x channels per block (32 channels_last, where a warp reads 32
// neighbouring channels; 1 for NCHW, where it reads 32 neighbouring positions), blockDim.y
// threads along the values, gridDim.y splits of them.
struct Split {
  uint32_t begin, end;
};

__device__ __forceinline__ Split split_of_block(uint32_t count) {
  const uint32_t per = (count + gridDim.y - 1) / gridDim.y;
  const uint32_t begin = min(count, blockIdx.y * per);
  return {begin, min(count, begin + per)};
}

template <typename Acc>
__device__ __forceinline__ Acc block_sum(Acc v, Acc* shared) {
  return group_reduce_y(
      v, [](Acc a, Acc b) { return a + b; }, shared);
}

// Step 1 forward: the split's mean and sum of squared deviations per channel into
// moments[(split * 2 + {0, 1}) * C + c].
template <typename T, bool kCL>
__global__ void __launch_bounds__(kThreads) partial_moments_kernel(Geometry<kCL> g, const T* x, double* moments) {
  using Acc = opmath_t<T>;
  __shared__ Acc shared[kThreads];
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = c < g.channels;
  const Split s = split_of_block(g.count);
  Acc sum = 0;
  if (valid) {
    for (uint32_t i = s.begin + threadIdx.y; i < s.end; i += blockDim.y) sum += cast<Acc>(x[g.offset(c, i)]);
  }
  sum = block_sum(sum, shared);
  const Acc mean = s.end > s.begin ? sum / static_cast<Acc>(s.end - s.begin) : Acc(0);
  Acc squares = 0;
  if (valid) {
    for (uint32_t i = s.begin + threadIdx.y; i < s.end; i += blockDim.y) {
      const Acc d = cast<Acc>(x[g.offset(c, i)]) - mean;
      squares += d * d;
    }
  }
  squares = block_sum(squares, shared);
  if (valid && threadIdx.y == 0) {
    moments[(blockIdx.y * 2) * g.channels + c] = mean;
    moments[(blockIdx.y * 2 + 1) * g.channels + c] = squares;
  }
}

// Step 2 forward, one thread per channel: the splits' moments combined in order (Chan et
// al.), the statistics saved and folded into the running ones, and the affine coefficients
// coef[c] (scale) and coef[C + c] (shift) of step 3. Thread 0 also counts the batch in
// num_batches_tracked (when given).
template <typename P>
__global__ void finish_moments_kernel(uint32_t channels, uint32_t count, uint32_t splits, const double* moments,
                                      const P* weight, const P* bias, P* running_mean, P* running_var,
                                      int64_t* num_batches_tracked, double momentum, double eps, P* save_mean,
                                      P* save_invstd, P* coef) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  if (c == 0 && num_batches_tracked != nullptr) ++*num_batches_tracked;
  const uint32_t per = (count + splits - 1) / splits;
  double n = 0, mean = 0, m2 = 0;
  for (uint32_t k = 0; k < splits; ++k) {
    const double nk = static_cast<double>(min(count, (k + 1) * per) - min(count, k * per));
    if (nk == 0) continue;
    const double mk = moments[(k * 2) * channels + c], m2k = moments[(k * 2 + 1) * channels + c];
    const double total = n + nk, delta = mk - mean;
    mean += delta * nk / total;
    m2 += m2k + delta * delta * n * nk / total;
    n = total;
  }
  const double var = m2 / n;
  save_mean[c] = static_cast<P>(mean);
  save_invstd[c] = static_cast<P>(1.0 / sqrt(var + eps));
  if (running_mean != nullptr) {
    running_mean[c] = static_cast<P>((1 - momentum) * running_mean[c] + momentum * mean);
    running_var[c] = static_cast<P>((1 - momentum) * running_var[c] + momentum * var * n / (n - 1));
  }
  const BatchNormAffine<P> z(save_mean[c], save_invstd[c], weight, bias, c);
  coef[c] = z.scale;
  coef[channels + c] = z.shift;
}

// Step 3 forward: out = activation(x * scale + shift), with the coefficients of step 2 in
// training; in evaluation (coef null) computed from the running statistics, which thread c
// also saves.
template <typename T, bool kCL>
__global__ void __launch_bounds__(kElementThreads)
    normalize_kernel(Geometry<kCL> g, uint32_t numel, const T* x, T* out, const opmath_t<T>* coef,
                     const opmath_t<T>* weight, const opmath_t<T>* bias, const opmath_t<T>* running_mean,
                     const opmath_t<T>* running_var, double eps, opmath_t<T>* save_mean, opmath_t<T>* save_invstd,
                     FusedActivation activation) {
  using P = opmath_t<T>;
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += step) {
    const uint32_t c = g.channel_at(i);
    P scale, shift;
    if (coef != nullptr) {
      scale = coef[c];
      shift = coef[g.channels + c];
    } else {
      const P invstd = static_cast<P>(1.0 / sqrt(static_cast<double>(running_var[c]) + eps));
      const BatchNormAffine<P> z(running_mean[c], invstd, weight, bias, c);
      scale = z.scale;
      shift = z.shift;
      if (i < g.channels) {
        save_mean[i] = running_mean[i];
        save_invstd[i] = static_cast<P>(1.0 / sqrt(static_cast<double>(running_var[i]) + eps));
      }
    }
    out[i] = functors::batch_norm_activation<T>(activation, cast<P>(x[i]) * scale + shift);
  }
}

// The gradient of z (the activation's input) at offset i, from the saved statistics' affine
// coefficients (Gelu recomputes z with them).
template <typename T>
__device__ __forceinline__ opmath_t<T> grad_z_at(FusedActivation activation, const T* grad_out, const T* out,
                                                 const T* x, uint32_t i, opmath_t<T> scale, opmath_t<T> shift) {
  using P = opmath_t<T>;
  if (activation == FusedActivation::None) return cast<P>(grad_out[i]);
  return functors::batch_norm_activation_grad<T>(activation, cast<P>(grad_out[i]), out != nullptr ? out[i] : T(0),
                                                 cast<P>(x[i]) * scale + shift);
}

// Step 1 backward: the split's sum(dz) and sum(dz * (x - mean)) per channel into
// sums[(split * 2 + {0, 1}) * C + c].
template <typename T, bool kCL>
__global__ void __launch_bounds__(kThreads)
    partial_grad_sums_kernel(Geometry<kCL> g, const T* grad_out, const T* x, const T* out, const opmath_t<T>* weight,
                             const opmath_t<T>* bias, const opmath_t<T>* save_mean, const opmath_t<T>* save_invstd,
                             FusedActivation activation, double* sums) {
  using P = opmath_t<T>;
  __shared__ P shared[kThreads];
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = c < g.channels;
  const Split s = split_of_block(g.count);
  P sum_g = 0, sum_gx = 0;
  if (valid) {
    const BatchNormAffine<P> z(save_mean[c], save_invstd[c], weight, bias, c);
    const P mean = save_mean[c];
    for (uint32_t i = s.begin + threadIdx.y; i < s.end; i += blockDim.y) {
      const uint32_t at = g.offset(c, i);
      const P dz = grad_z_at(activation, grad_out, out, x, at, z.scale, z.shift);
      sum_g += dz;
      sum_gx += dz * (cast<P>(x[at]) - mean);
    }
  }
  sum_g = block_sum(sum_g, shared);
  sum_gx = block_sum(sum_gx, shared);
  if (valid && threadIdx.y == 0) {
    sums[(blockIdx.y * 2) * g.channels + c] = sum_g;
    sums[(blockIdx.y * 2 + 1) * g.channels + c] = sum_gx;
  }
}

// Step 2 backward, one thread per channel: the splits' sums added in order, grad_weight and
// grad_bias, and the coefficients of step 3 in coef [5, C]: grad_input = a * dz + k * x + d
// (k and d from the batch statistics' own gradients in training), then z's scale and shift.
template <typename P>
__global__ void finish_grad_sums_kernel(uint32_t channels, uint32_t count, uint32_t splits, const double* sums,
                                        const P* weight, const P* bias, const P* save_mean, const P* save_invstd,
                                        bool training, P* grad_weight, P* grad_bias, P* coef) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  double sum_g = 0, sum_gx = 0;
  for (uint32_t k = 0; k < splits; ++k) {
    sum_g += sums[(k * 2) * channels + c];
    sum_gx += sums[(k * 2 + 1) * channels + c];
  }
  const double invstd = save_invstd[c], n = count;
  if (grad_weight != nullptr) grad_weight[c] = static_cast<P>(sum_gx * invstd);
  if (grad_bias != nullptr) grad_bias[c] = static_cast<P>(sum_g);
  const double a = invstd * (weight != nullptr ? static_cast<double>(weight[c]) : 1.0);
  const double k = training ? -a * invstd * invstd * sum_gx / n : 0;
  const double d = training ? -a * sum_g / n : 0;
  coef[c] = static_cast<P>(a);
  coef[channels + c] = static_cast<P>(k);
  coef[2 * channels + c] = static_cast<P>(d - k * static_cast<double>(save_mean[c]));
  const BatchNormAffine<P> z(save_mean[c], save_invstd[c], weight, bias, c);
  coef[3 * channels + c] = z.scale;
  coef[4 * channels + c] = z.shift;
}

// Step 3 backward: grad_input = a * dz + k * x + d.
template <typename T, bool kCL>
__global__ void __launch_bounds__(kElementThreads)
    grad_input_kernel(Geometry<kCL> g, uint32_t numel, const T* grad_out, const T* x, const T* out,
                      const opmath_t<T>* coef, FusedActivation activation, T* grad_input) {
  using P = opmath_t<T>;
  const uint32_t C = g.channels, step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += step) {
    const uint32_t c = g.channel_at(i);
    const P dz = grad_z_at(activation, grad_out, out, x, i, coef[3 * C + c], coef[4 * C + c]);
    grad_input[i] = cast<T>(dz * coef[c] + cast<P>(x[i]) * coef[C + c] + coef[2 * C + c]);
  }
}

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// A 1-D buffer of n values from the caching allocator (stream-ordered, freed after the op).
Tensor workspace(int64_t n, DType dtype, Device device) {
  return native::empty(Shape(std::vector<int64_t>{n}), TensorOptions(dtype).device(device));
}

// The launch of step 1 for `input`'s layout: its blocks, threads and splits.
struct ChannelLaunch {
  dim3 blocks, threads;
};

ChannelLaunch channel_launch(int device, bool channels_last, uint32_t channels, uint32_t count) {
  const dim3 threads = channels_last ? dim3(32, kThreads / 32) : dim3(1, kThreads);
  const uint32_t tiles = (channels + threads.x - 1) / threads.x;
  // Enough blocks to fill the device twice over, each split at least 4 values per thread.
  const int64_t wanted = 2 * static_cast<int64_t>(device_limits(device).sm_count);
  const int64_t most = std::max<int64_t>(1, count / (4 * threads.y));
  const int64_t splits = std::clamp<int64_t>(wanted / tiles, 1, std::min<int64_t>(most, 65535));
  return {dim3(tiles, static_cast<unsigned>(splits)), threads};
}

// Channels_last unless contiguous (the native op passes nothing else).
bool is_channels_last(const Tensor& input) { return !input.is_contiguous(); }

void check_sizes(const char* op, const Tensor& input) {
  BRISK_CHECK(input.numel() <= kMaxLaunchElements, "{}: CUDA kernels take at most 2^31 - 1 elements, got input {}", op,
              input.describe());
}

template <bool kCL>
Geometry<kCL> geometry_of(const Tensor& input) {
  const uint32_t channels = static_cast<uint32_t>(input.size(1));
  const uint32_t spatial = static_cast<uint32_t>(input.numel() / std::max<int64_t>(1, input.size(0) * channels));
  return {channels, spatial, static_cast<uint32_t>(input.size(0)) * spatial};
}

template <typename T, bool kCL>
void forward(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
             const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
             const Tensor& num_batches_tracked, bool training, double momentum, double eps,
             FusedActivation activation) {
  using P = opmath_t<T>;
  const Geometry<kCL> g = geometry_of<kCL>(input);
  const uint32_t numel = static_cast<uint32_t>(input.numel());
  LaunchScope scope(input.device());
  Tensor coef;
  if (training) {
    const ChannelLaunch launch = channel_launch(scope.device(), kCL, g.channels, g.count);
    Tensor moments = workspace(int64_t{launch.blocks.y} * 2 * g.channels, kFloat64, input.device());
    coef = workspace(2 * int64_t{g.channels}, save_mean.dtype(), input.device());
    partial_moments_kernel<T, kCL>
        <<<launch.blocks, launch.threads, 0, scope.stream()>>>(g, input.data_ptr<T>(), moments.data_ptr<double>());
    BRISK_CUDA_CHECK_LAUNCH();
    finish_moments_kernel<P><<<(g.channels + 127) / 128, 128, 0, scope.stream()>>>(
        g.channels, g.count, launch.blocks.y, moments.data_ptr<double>(), data_or_null<P>(weight),
        data_or_null<P>(bias), data_or_null<P>(running_mean), data_or_null<P>(running_var),
        data_or_null<int64_t>(num_batches_tracked), momentum, eps, save_mean.data_ptr<P>(), save_invstd.data_ptr<P>(),
        coef.data_ptr<P>());
    BRISK_CUDA_CHECK_LAUNCH();
  }
  normalize_kernel<T, kCL><<<grid_size(scope.device(), numel, kElementThreads), kElementThreads, 0, scope.stream()>>>(
      g, numel, input.data_ptr<T>(), out.data_ptr<T>(), data_or_null<P>(coef), data_or_null<P>(weight),
      data_or_null<P>(bias), data_or_null<P>(running_mean), data_or_null<P>(running_var), eps, save_mean.data_ptr<P>(),
      save_invstd.data_ptr<P>(), activation);
  BRISK_CUDA_CHECK_LAUNCH();
}

template <typename T, bool kCL>
void backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
              const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out, const Tensor& save_mean,
              const Tensor& save_invstd, bool training, FusedActivation activation) {
  using P = opmath_t<T>;
  const Geometry<kCL> g = geometry_of<kCL>(input);
  const uint32_t numel = static_cast<uint32_t>(input.numel());
  LaunchScope scope(input.device());
  const ChannelLaunch launch = channel_launch(scope.device(), kCL, g.channels, g.count);
  Tensor sums = workspace(int64_t{launch.blocks.y} * 2 * g.channels, kFloat64, input.device());
  Tensor coef = workspace(5 * int64_t{g.channels}, save_mean.dtype(), input.device());
  partial_grad_sums_kernel<T, kCL><<<launch.blocks, launch.threads, 0, scope.stream()>>>(
      g, grad_out.data_ptr<T>(), input.data_ptr<T>(), data_or_null<T>(out), data_or_null<P>(weight),
      data_or_null<P>(bias), save_mean.data_ptr<P>(), save_invstd.data_ptr<P>(), activation, sums.data_ptr<double>());
  BRISK_CUDA_CHECK_LAUNCH();
  finish_grad_sums_kernel<P><<<(g.channels + 127) / 128, 128, 0, scope.stream()>>>(
      g.channels, g.count, launch.blocks.y, sums.data_ptr<double>(), data_or_null<P>(weight), data_or_null<P>(bias),
      save_mean.data_ptr<P>(), save_invstd.data_ptr<P>(), training, data_or_null<P>(grad_weight),
      data_or_null<P>(grad_bias), coef.data_ptr<P>());
  BRISK_CUDA_CHECK_LAUNCH();
  if (!grad_input.defined()) return;
  grad_input_kernel<T, kCL><<<grid_size(scope.device(), numel, kElementThreads), kElementThreads, 0, scope.stream()>>>(
      g, numel, grad_out.data_ptr<T>(), input.data_ptr<T>(), data_or_null<T>(out), coef.data_ptr<P>(), activation,
      grad_input.data_ptr<T>());
  BRISK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void CudaBackend::batch_norm(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& input,
                             const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& num_batches_tracked, bool training,
                             double momentum, double eps, FusedActivation activation) {
  check_sizes("batch_norm", input);
  if (input.numel() == 0) return;
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto run = is_channels_last(input) ? forward<T, true> : forward<T, false>;
    run(out, save_mean, save_invstd, input, weight, bias, running_mean, running_var, num_batches_tracked, training,
        momentum, eps, activation);
  });
}

void CudaBackend::batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                      const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                      const Tensor& save_invstd, bool training, FusedActivation activation) {
  check_sizes("batch_norm_backward", input);
  if (input.numel() == 0) return;
  dispatch(FloatingTypes{}, input.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto run = is_channels_last(input) ? backward<T, true> : backward<T, false>;
    run(grad_input, grad_weight, grad_bias, grad_out, input, weight, bias, out, save_mean, save_invstd, training,
        activation);
  });
}

}  // namespace brisk::cuda
