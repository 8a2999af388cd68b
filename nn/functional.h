#pragma once
// nn::functional: the stateless forms of the layers and the losses, differentiable, with
// PyTorch's argument names, defaults and semantics. Modules (nn/modules/) call these.
//
//   namespace F = brisk::nn::functional;
//   Tensor y = F::max_pool2d(F::relu(F::conv2d(x, w, b, /*stride=*/1, /*padding=*/2)), 2);
//   Tensor loss = F::cross_entropy(logits, labels);
//
// Convolution and pooling take NCHW inputs (or CHW for one unbatched image) of a floating point
// dtype (bfloat16 and float16 computed in float32 on the CPU). libtorch's spellings with option
// objects (F::dropout(x, F::DropoutFuncOptions().p(0.5))) are in nn/functional_options.h.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "nn/size2.h"
#include "tensor/arg.h"
#include "tensor/fused_activation.h"
#include "tensor/generator.h"
#include "tensor/tensor.h"

namespace brisk::nn {

// How a loss combines its per-element values.
enum class Reduction { None, Mean, Sum };

}  // namespace brisk::nn

namespace brisk {

// libtorch's names of the reductions: CrossEntropyLossOptions().reduction(torch::kSum).
inline constexpr nn::Reduction kNone = nn::Reduction::None;
inline constexpr nn::Reduction kMean = nn::Reduction::Mean;
inline constexpr nn::Reduction kSum = nn::Reduction::Sum;

}  // namespace brisk

namespace brisk::nn::functional {

// ---- Activations: the differentiable ops of autograd/ops.h, under these names too ----
using brisk::add_relu;
using brisk::elu;
using brisk::gelu;
using brisk::hardswish;
using brisk::leaky_relu;
using brisk::log_softmax;
using brisk::relu;
using brisk::sigmoid;
using brisk::silu;
using brisk::softmax;
using brisk::softplus;
using brisk::tanh;

// ---- Linear and reshaping (nn/functional/linear.cc) ----
// input [*, in_features] @ weight [out_features, in_features]^T + bias [out_features].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
Tensor flatten(const Tensor& input, int64_t start_dim = 1, int64_t end_dim = -1);

// ---- Padding (nn/functional/pad.cc) ----
// Constant padding, as torch.nn.functional.pad(input, pad, value=value): `pad` holds (before,
// after) pairs from the last dim backwards ({1, 2} pads the last dim, {1, 2, 0, 3} the last
// two); a negative pad crops. A new tensor in input's layout (channels_last stays so).
Tensor pad(const Tensor& input, IntArrayRef pad, double value = 0.0);

// ---- Convolution (nn/functional/conv.cc) ----
// weight [out_channels, in_channels / groups, kH, kW]; bias [out_channels] or undefined.
// Zero padding. Differentiable twice (the backward is itself built from conv2d ops).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size2 stride = 1,
              Size2 padding = 0, Size2 dilation = 1, int64_t groups = 1);

// input [N, C, L] (or [C, L] for one unbatched sequence); weight [out_channels,
// in_channels / groups, kernel_size]; bias [out_channels] or undefined. Zero padding.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), int64_t stride = 1,
              int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1);
// The transposed convolution ("deconvolution"): the gradient of conv2d with respect to its
// input, as torch.nn.functional.conv_transpose2d (note that groups comes before dilation).
// weight [in_channels, out_channels / groups, kH, kW]; bias [out_channels] or undefined. Each
// output dim is (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1;
// output_padding, the extra rows and columns at the bottom and right, must be smaller than
// the stride or the dilation. Differentiable twice. (nn/functional/conv_transpose.cc)
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), Size2 stride = 1,
                        Size2 padding = 0, Size2 output_padding = 0, int64_t groups = 1, Size2 dilation = 1);

// ---- Pooling (nn/functional/pool.cc). An absent stride means stride = kernel_size. ----
Tensor max_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride = std::nullopt, Size2 padding = 0,
                  Size2 dilation = 1, bool ceil_mode = false);
// Also returns the int64 position (h * W + w in the input plane) of each maximum.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Size2 kernel_size,
                                                  std::optional<Size2> stride = std::nullopt, Size2 padding = 0,
                                                  Size2 dilation = 1, bool ceil_mode = false);
// count_include_pad: zero padding counts in each window's divisor (PyTorch's default).
Tensor avg_pool2d(const Tensor& input, Size2 kernel_size, std::optional<Size2> stride = std::nullopt, Size2 padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size);

// ---- Normalization (nn/functional/normalization.cc) ----
// input [N, C, *]. In training (or without running stats) normalizes with the batch
// statistics over every dim but C and, when running stats are given, updates them in place:
// running = (1 - momentum) * running + momentum * batch statistic, with the unbiased batch
// variance. Otherwise normalizes with the running stats. An empty input (no rows, as a
// data-parallel rank may hold) gives an empty output and leaves the running stats as they
// are, as in PyTorch; one value per channel in training is refused. `activation` (Relu, Gelu)
// is applied to the result, as relu(batch_norm(...)) would, but fused: on the devices with
// batch norm kernels (CPU, sim, CUDA) normalization and activation are one kernel forward and
// one backward, and the gradient reads the saved output (Relu) or input (Gelu), no
// intermediate. num_batches_tracked (nn::BatchNorm's int64 [] counter on input's device), when
// given, is incremented by one in training: by the batch norm kernel itself where there is
// one (no kernel of its own), else as its own op.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5, FusedActivation activation = FusedActivation::None,
                  const Tensor& num_batches_tracked = Tensor());
// How the processes that normalize parts of one batch together share their per-channel
// statistics: sync_batch_norm's view of a process group (nn::SyncBatchNorm makes one from a
// dist::ProcessGroup; tests make one within a process).
class BatchStatsExchange {
 public:
  virtual ~BatchStatsExchange() = default;
  // How many processes take part; with 1 there is nothing to exchange.
  virtual int size() const = 0;
  // Every process's `stats` stacked, [size(), *stats.shape], differentiably: the gradient
  // for this process's slice is the sum of every process's (so each must run the backward).
  virtual Tensor all_gather(const Tensor& stats) const = 0;
};
// batch_norm in training with the statistics of the whole batch whose parts the processes
// of `exchange` hold (each calls it with its part, as torch.nn.SyncBatchNorm): every process
// gets its part normalized exactly as batch_norm would normalize the concatenated batch, and
// running stats (when given) updated with the whole batch's mean and unbiased variance. A
// part may be empty. The gradient of input includes the other processes' outputs' dependence
// on it (through the exchange); those of weight and bias are this part's only (DDP sums them).
// `activation` is applied after, as its own op; num_batches_tracked (when given) is
// incremented by one, as batch_norm's in training.
Tensor sync_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, double momentum, double eps, const BatchStatsExchange& exchange,
                       FusedActivation activation = FusedActivation::None,
                       const Tensor& num_batches_tracked = Tensor());
// Normalizes over the trailing dims given by normalized_shape (which must match them).
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// Normalizes each sample's channels in num_groups groups (which must divide C), with the
// mean and biased variance of each group over its channels and positions, then applies the
// per-channel weight and bias [C] when given. input [N, C, *].
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// ---- Resampling (nn/functional/interpolate.cc) ----
// The arguments of interpolate, as torch.nn.functional.interpolate's: exactly one of size
// and scale_factor, each one number for every spatial dim or one per spatial dim.
//
//   F::interpolate(x, F::InterpolateOptions().scale_factor({2}).mode("bilinear").align_corners(false));
//   F::interpolate(x, F::InterpolateOptions().size({32, 48}));
struct InterpolateOptions {
  // The output size, or the factor by which each spatial dim grows (exactly one of them).
  InterpolateOptions& size(std::vector<int64_t> value) {
    size_ = std::move(value);
    return *this;
  }
  const std::optional<std::vector<int64_t>>& size() const { return size_; }
  InterpolateOptions& scale_factor(std::vector<double> value) {
    scale_factor_ = std::move(value);
    return *this;
  }
  const std::optional<std::vector<double>>& scale_factor() const { return scale_factor_; }
  // "nearest" (input [N, C, L], [N, C, H, W] or [N, C, D, H, W]) or "bilinear" ([N, C, H, W]).
  BRISK_ARG(std::string, mode) = "nearest";
  // bilinear only: whether the corner pixels of input and output are aligned (their centers
  // coincide), as PyTorch; unset means false.
  BRISK_ARG(std::optional<bool>, align_corners);
  // With a scale_factor: whether the source positions use in / out, the scale that the
  // output size actually has, instead of 1 / scale_factor.
  BRISK_ARG(bool, recompute_scale_factor) = false;

 private:
  std::optional<std::vector<int64_t>> size_;
  std::optional<std::vector<double>> scale_factor_;
};
// Resizes the spatial dims. With a scale_factor s the output size is floor(in * s) and the
// source positions are computed with 1 / s (in / out with recompute_scale_factor), as PyTorch.
// "nearest" picks input index floor(out_index * step), step = 1 / s or in / out (PyTorch's
// legacy "nearest"); "bilinear" mixes the four neighbors, whose weights depend on
// align_corners.
Tensor interpolate(const Tensor& input, const InterpolateOptions& options);

// ---- Dropout (nn/functional/dropout.cc) ----
// In training, zeroes each element with probability p (drawn from `generator`, the default
// one when null) and scales the others by 1 / (1 - p); the identity otherwise.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, Generator* generator = nullptr);
// Zeroes whole channels instead: each [n, c] plane of an input [N, C, H, W] is zeroed with
// probability p and the others scaled by 1 / (1 - p). A 3-D input is taken as [N, C, L], as
// PyTorch 2 does (it warns that a future release will read it as an unbatched [C, H, W]).
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, Generator* generator = nullptr);

// ---- Embedding (nn/functional/embedding.cc) ----
// Rows of weight [num_embeddings, dim] picked by int64 indices of any shape: [*, dim]. The
// row padding_idx gets no gradient.
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt);

// ---- Losses (nn/functional/loss.cc) ----
// input: log-probabilities [N, C], [N, C, d1, ...] or [C]; target: int64 class indices [N],
// [N, d1, ...] or []. Each element's loss is -weight[t] * input[n, t]; targets equal to
// ignore_index contribute nothing, and the mean divides by the total weight of the others
// (NaN when every target is ignored, as PyTorch).
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(), int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);
// log_softmax over the class dim followed by nll_loss. With label_smoothing s, the result is
// (1 - s) * nll_loss + s / C * smooth, where smooth is each element's -sum_c weight[c] *
// log_softmax[c] (zero for ignored targets) reduced like the loss (the mean divides by the
// same total weight), exactly as PyTorch.
//
// A floating point target of the input's shape holds class probabilities instead (soft labels,
// as from mixup or cutmix): each element's loss is -sum_c weight[c] * p[c] * log_softmax[c] with
// p = (1 - s) * target + s / C, and the mean divides by the number of elements, as PyTorch;
// ignore_index must then stay negative.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
// Class indices run one fused kernel forward and one backward (nn/functional/nll_loss_op.h),
// after log_softmax's for cross_entropy; the class weights get no gradient, as in PyTorch.
// Targets outside [0, C) other than ignore_index raise brisk::Error naming the value and C: at
// the call for CPU tensors (naming the element too); for tensors on a device, whose targets
// the host cannot read without waiting for it, at the next check_deferred_targets(), or at the
// latest at the 1000th such call since the last check (nn/functional/class_targets.h).

// Raises brisk::Error for the first bad target that this thread's nll_loss and cross_entropy
// calls met on a device since the last check, naming its value, the number of classes, the
// call and the element; forgets the calls checked. Reads one small tensor per device and loss
// (a synchronization with each device used): a training loop calls it where it reads its
// metrics anyway (train/train_loop.h), not every step.
void check_deferred_targets();

// (input - target)^2, broadcast.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace brisk::nn::functional
