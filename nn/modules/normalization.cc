#include "nn/modules/normalization.h"

#include <ostream>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::nn {

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  BRISK_CHECK(!options.normalized_shape().empty(), "LayerNorm: normalized_shape must have at least one dim");
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", empty(options.normalized_shape()));
    bias = register_parameter("bias", options.bias() ? empty(options.normalized_shape()) : Tensor());
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("LayerNorm({}, eps={}, elementwise_affine={})", options.normalized_shape(), options.eps(),
                        options.elementwise_affine());
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  const int64_t groups = options.num_groups(), channels = options.num_channels();
  BRISK_CHECK(groups > 0 && channels % groups == 0,
              "GroupNorm: num_channels {} must be divisible by num_groups {} (a positive number)", channels, groups);
  if (options.affine()) {
    weight = register_parameter("weight", empty({channels}));
    bias = register_parameter("bias", empty({channels}));
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  BRISK_CHECK(input.dim() >= 2 && input.size(1) == options.num_channels(),
              "GroupNorm: expected an input [N, {}, *] ({} channels), got {}", options.num_channels(),
              options.num_channels(), input.describe());
  return functional::group_norm(input, options.num_groups(), weight, bias, options.eps());
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("GroupNorm({}, {}, eps={}, affine={})", options.num_groups(), options.num_channels(),
                        options.eps(), options.affine());
}

}  // namespace brisk::nn
