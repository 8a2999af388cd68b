#include "nn/functional_options.h"

namespace brisk::nn::functional {

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  return dropout(input, options.p(), options.training(), options.generator());
}

Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options) {
  return dropout2d(input, options.p(), options.training(), options.generator());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  return batch_norm(input, running_mean, running_var, options.weight(), options.bias(), options.training(),
                    options.momentum(), options.eps(), options.activation());
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return layer_norm(input, options.normalized_shape(), options.weight(), options.bias(), options.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return group_norm(input, options.num_groups(), options.weight(), options.bias(), options.eps());
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return softmax(options.dtype() ? input.to(*options.dtype()) : input, options.dim());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return log_softmax(options.dtype() ? input.to(*options.dtype()) : input, options.dim());
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) { return gelu(input, options.approximate()); }

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  return leaky_relu(input, options.negative_slope());
}

Tensor elu(const Tensor& input, const ELUFuncOptions& options) { return elu(input, options.alpha()); }

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return softplus(input, options.beta(), options.threshold());
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv1d(input, weight, options.bias(), options.stride(), options.padding(), options.dilation(),
                options.groups());
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv2d(input, weight, options.bias(), options.stride(), options.padding(), options.dilation(),
                options.groups());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return conv_transpose2d(input, weight, options.bias(), options.stride(), options.padding(),
                          options.output_padding(), options.groups(), options.dilation());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                    options.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                    options.count_include_pad(), options.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return adaptive_avg_pool2d(input, options.output_size());
}

Tensor embedding(const Tensor& indices, const Tensor& weight, const EmbeddingFuncOptions& options) {
  return embedding(indices, weight, options.padding_idx());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  return cross_entropy(input, target, options.weight(), options.ignore_index(), options.reduction(),
                       options.label_smoothing());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return nll_loss(input, target, options.weight(), options.ignore_index(), options.reduction());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return mse_loss(input, target, options.reduction());
}

}  // namespace brisk::nn::functional
