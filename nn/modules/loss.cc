#include "nn/modules/loss.h"

namespace brisk::nn {

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_) : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target, weight, options.ignore_index(), options.reduction(),
                                   options.label_smoothing());
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, weight, options.ignore_index(), options.reduction());
}

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, options.reduction());
}

}  // namespace brisk::nn
