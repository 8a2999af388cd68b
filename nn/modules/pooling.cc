#include "nn/modules/pooling.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

Tensor MaxPool2dImpl::forward(const Tensor& input) { return forward_with_indices(input).first; }

std::pair<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) const {
  return functional::max_pool2d_with_indices(input, options.kernel_size(), options.stride(), options.padding(),
                                             options.dilation(), options.ceil_mode());
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("MaxPool2d(kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={})",
                        options.kernel_size().pair(), options.stride().value_or(options.kernel_size()).pair(),
                        options.padding().pair(), options.dilation().pair(), options.ceil_mode());
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return functional::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                                options.count_include_pad(), options.divisor_override());
}

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("AvgPool2d(kernel_size={}, stride={}, padding={})", options.kernel_size().pair(),
                        options.stride().value_or(options.kernel_size()).pair(), options.padding().pair());
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, options.output_size());
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("AdaptiveAvgPool2d(output_size={})", options.output_size().pair());
}

}  // namespace brisk::nn
