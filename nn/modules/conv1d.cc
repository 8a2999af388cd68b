#include "nn/modules/conv1d.h"

#include <ostream>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/conv_parameters.h"

namespace brisk::nn {

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), groups = options.groups();
  BRISK_CHECK(groups > 0 && in % groups == 0 && out % groups == 0,
              "Conv1d: in_channels {} and out_channels {} must both be divisible by groups {}", in, out, groups);
  BRISK_CHECK(options.kernel_size() > 0, "Conv1d: kernel_size {} must be positive", options.kernel_size());
  weight = register_parameter("weight", empty({out, in / groups, options.kernel_size()}));
  bias = register_parameter("bias", options.bias() ? empty({out}) : Tensor());
  reset_parameters();
}

void Conv1dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor Conv1dImpl::forward(const Tensor& input) {
  return functional::conv1d(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                            options.groups());
}

void Conv1dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("Conv1d({}, {}, kernel_size={}, stride={}", options.in_channels(), options.out_channels(),
                        options.kernel_size(), options.stride());
  if (options.padding() != 0) stream << ", padding=" << options.padding();
  if (options.dilation() != 1) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

}  // namespace brisk::nn
