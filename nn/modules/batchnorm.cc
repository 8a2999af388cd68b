#include "nn/modules/batchnorm.h"

#include <algorithm>
#include <ostream>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::nn {

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& options_, const char* name,
                                     std::initializer_list<int64_t> input_dims)
    : options(options_), name_(name), input_dims_(input_dims) {
  const int64_t c = options.num_features();
  BRISK_CHECK(c > 0, "{}: num_features must be positive, got {}", name_, c);
  if (options.affine()) {
    weight = register_parameter("weight", empty({c}));
    bias = register_parameter("bias", empty({c}));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", empty({c}));
    running_var = register_buffer("running_var", empty({c}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
  reset_parameters();
}

void BatchNormImplBase::reset_running_stats() {
  if (!options.track_running_stats()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  BRISK_CHECK(std::find(input_dims_.begin(), input_dims_.end(), input.dim()) != input_dims_.end(),
              "{}: expected a {}-D input, got input {}", name_, fmt::join(input_dims_, "-D or "), input.describe());
  // In training the batch is counted in num_batches_tracked by the op itself (in the batch norm
  // kernel where the device has one). Without momentum the running statistics are the
  // cumulative average, this batch weighted by 1 / the count that includes it.
  const bool counting = is_training() && options.track_running_stats();
  const Tensor counter = counting ? num_batches_tracked : Tensor();
  double momentum = options.momentum().value_or(0.0);
  if (counting && !options.momentum()) momentum = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>() + 1);
  if (is_training() && stats_exchange && stats_exchange->size() > 1) {
    return functional::sync_batch_norm(input, running_mean, running_var, weight, bias, momentum, options.eps(),
                                       *stats_exchange, options.activation(), counter);
  }
  // Batch statistics in training, and always when no running statistics are kept.
  return functional::batch_norm(input, running_mean, running_var, weight, bias,
                                is_training() || !options.track_running_stats(), momentum, options.eps(),
                                options.activation(), counter);
}

void BatchNormImplBase::pretty_print(std::ostream& stream) const {
  stream << (stats_exchange ? "SyncBatchNorm" : name_) << "(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << (options.affine() ? "true" : "false")
         << ", track_running_stats=" << (options.track_running_stats() ? "true" : "false");
  if (options.activation() != FusedActivation::None)
    stream << ", activation=" << fused_activation_name(options.activation());
  stream << ")";
}

}  // namespace brisk::nn
