#include "nn/modules/conv.h"

#include <ostream>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/conv_parameters.h"

namespace brisk::nn {

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), groups = options.groups();
  const Size2& k = options.kernel_size();
  BRISK_CHECK(groups > 0 && in % groups == 0 && out % groups == 0,
              "Conv2d: in_channels {} and out_channels {} must both be divisible by groups {}", in, out, groups);
  BRISK_CHECK(k[0] > 0 && k[1] > 0, "Conv2d: kernel_size {} must be positive", k.pair());
  weight = register_parameter("weight", empty({out, in / groups, k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? empty({out}) : Tensor());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor Conv2dImpl::forward(const Tensor& input) {
  return functional::conv2d(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                            options.groups());
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("Conv2d({}, {}, kernel_size={}, stride={}", options.in_channels(), options.out_channels(),
                        options.kernel_size().pair(), options.stride().pair());
  if (!(options.padding() == Size2(0))) stream << fmt::format(", padding={}", options.padding().pair());
  if (!(options.dilation() == Size2(1))) stream << fmt::format(", dilation={}", options.dilation().pair());
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

}  // namespace brisk::nn
