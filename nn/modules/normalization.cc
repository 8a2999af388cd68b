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

}  // namespace brisk::nn
