#pragma once
// Batch normalization, as torch.nn.BatchNorm1d / BatchNorm2d. In training mode each call
// normalizes with the batch statistics and (with track_running_stats) folds them into the
// running_mean / running_var buffers (the variance unbiased) and counts
// num_batches_tracked; in eval mode the running statistics are used. Without momentum the
// running statistics are the cumulative average over all batches so far. With a
// stats_exchange (nn::SyncBatchNorm, convert_sync_batchnorm) the training statistics are
// those of the whole batch spread over several processes. With an activation option the
// module returns activation(batch_norm(x)), computed in one kernel where the device has batch
// norm kernels (nn::functional::batch_norm): BatchNorm2d(BatchNormOptions(16).activation(
// FusedActivation::Relu)) is BatchNorm2d(16) followed by ReLU, with the same parameters and
// state dict.
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"
#include "tensor/fused_activation.h"

namespace brisk::nn {

namespace functional {
class BatchStatsExchange;
}

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  BRISK_ARG(int64_t, num_features);
  BRISK_ARG(double, eps) = 1e-5;
  BRISK_ARG(std::optional<double>, momentum) = 0.1;
  // Learnable per-channel weight (ones) and bias (zeros).
  BRISK_ARG(bool, affine) = true;
  BRISK_ARG(bool, track_running_stats) = true;
  // Applied to the normalized output (FusedActivation::Relu or Gelu), fused into its kernel.
  BRISK_ARG(FusedActivation, activation) = FusedActivation::None;
};
// libtorch's per-layer names of the same options.
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;

// The shared implementation; `input_dims` are the input ranks the variant accepts.
class BatchNormImplBase : public Module {
 public:
  BatchNormImplBase(const BatchNormOptions& options, const char* name, std::initializer_list<int64_t> input_dims);

  Tensor forward(const Tensor& input) override;
  // Running mean 0, running variance 1, no batches tracked.
  void reset_running_stats();
  // reset_running_stats() plus weight = 1, bias = 0.
  void reset_parameters();
  std::string name() const override { return name_; }
  void pretty_print(std::ostream& stream) const override;

  BatchNormOptions options;
  Tensor weight;               // [C], undefined without affine
  Tensor bias;                 // [C], undefined without affine
  Tensor running_mean;         // [C] buffer, undefined without track_running_stats
  Tensor running_var;          // [C] buffer
  Tensor num_batches_tracked;  // int64 scalar buffer
  // Set: in training, when it spans more than one process, normalize with the statistics of
  // the whole batch whose parts those processes hold (functional::sync_batch_norm). Null:
  // with this batch's own.
  std::shared_ptr<functional::BatchStatsExchange> stats_exchange;

 private:
  std::string name_;
  std::vector<int64_t> input_dims_;
};

// Inputs [N, C] or [N, C, L].
class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm1dImpl(const BatchNormOptions& options_) : BatchNormImplBase(options_, "BatchNorm1d", {2, 3}) {}
  explicit BatchNorm1dImpl(int64_t num_features) : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
};

BRISK_MODULE(BatchNorm1d);

// Inputs [N, C, H, W].
class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm2dImpl(const BatchNormOptions& options_) : BatchNormImplBase(options_, "BatchNorm2d", {4}) {}
  explicit BatchNorm2dImpl(int64_t num_features) : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
};

BRISK_MODULE(BatchNorm2d);

}  // namespace brisk::nn
