#include "nn/modules/conv_transpose.h"

#include <ostream>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/functional/conv_transpose_length.h"
#include "nn/modules/conv_parameters.h"

namespace brisk::nn {

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), groups = options.groups();
  const Size2& k = options.kernel_size();
  BRISK_CHECK(groups > 0 && in % groups == 0 && out % groups == 0,
              "ConvTranspose2d: in_channels {} and out_channels {} must both be divisible by groups {}", in, out,
              groups);
  BRISK_CHECK(k[0] > 0 && k[1] > 0, "ConvTranspose2d: kernel_size {} must be positive", k.pair());
  weight = register_parameter("weight", empty({in, out / groups, k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? empty({out}) : Tensor());
  reset_parameters();
}

void ConvTranspose2dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor ConvTranspose2dImpl::forward(const Tensor& input) {
  return functional::conv_transpose2d(input, weight, bias, options.stride(), options.padding(),
                                      options.output_padding(), options.groups(), options.dilation());
}

Tensor ConvTranspose2dImpl::forward(const Tensor& input, const std::vector<int64_t>& output_size) {
  BRISK_CHECK(output_size.size() >= 2 && input.dim() >= 2,
              "ConvTranspose2d: expected an output_size ending in [H, W] and an input [N, C, H, W] or [C, H, W], "
              "got output_size {} and input {}",
              output_size, input.describe());
  Pair output_padding;
  for (int i = 0; i < 2; ++i) {
    const int64_t stride = options.stride()[i];
    const int64_t smallest = functional::conv_transpose_output_length(
        input.size(i - 2), options.kernel_size()[i], stride, options.padding()[i], options.dilation()[i], 0);
    const int64_t wanted = output_size[output_size.size() - 2 + i];
    BRISK_CHECK(smallest <= wanted && wanted < smallest + stride,
                "ConvTranspose2d: output_size {} cannot be reached from input {}: spatial dim {} can be {} to {}",
                output_size, input.sizes(), i, smallest, smallest + stride - 1);
    output_padding[i] = wanted - smallest;
  }
  return functional::conv_transpose2d(input, weight, bias, options.stride(), options.padding(), output_padding,
                                      options.groups(), options.dilation());
}

void ConvTranspose2dImpl::pretty_print(std::ostream& stream) const {
  stream << fmt::format("ConvTranspose2d({}, {}, kernel_size={}, stride={}", options.in_channels(),
                        options.out_channels(), options.kernel_size().pair(), options.stride().pair());
  if (!(options.padding() == Size2(0))) stream << fmt::format(", padding={}", options.padding().pair());
  if (!(options.output_padding() == Size2(0))) {
    stream << fmt::format(", output_padding={}", options.output_padding().pair());
  }
  if (!(options.dilation() == Size2(1))) stream << fmt::format(", dilation={}", options.dilation().pair());
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

}  // namespace brisk::nn
