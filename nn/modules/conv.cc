#include "nn/modules/conv.h"

#include <cmath>
#include <ostream>
#include <vector>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/functional/conv_transpose_length.h"
#include "nn/init.h"

namespace brisk::nn {
namespace {

// A size as PyTorch prints it: one number for Conv1d, a pair for Conv2d.
int64_t printed(int64_t size) { return size; }
Pair printed(const Size2& size) { return size.pair(); }

std::vector<int64_t> kernel_dims(int64_t size) { return {size}; }
std::vector<int64_t> kernel_dims(const Size2& size) { return {size[0], size[1]}; }

// PyTorch's _ConvNd.reset_parameters, for every convolution module: fan_in = weight.size(1) *
// the kernel's elements (for a transposed convolution, whose weight is [in, out / groups,
// ...], that is out / groups * kernel). bias may be undefined.
void reset_conv_parameters(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

}  // namespace

template <typename Size>
ConvImpl<Size>::ConvImpl(const ConvOptions<Size>& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), groups = options.groups();
  BRISK_CHECK(groups > 0 && in % groups == 0 && out % groups == 0,
              "{}: in_channels {} and out_channels {} must both be divisible by groups {}", name(), in, out, groups);
  Shape shape{out, in / groups};
  for (int64_t k : kernel_dims(options.kernel_size())) {
    BRISK_CHECK(k > 0, "{}: kernel_size {} must be positive", name(), printed(options.kernel_size()));
    shape.push_back(k);
  }
  weight = register_parameter("weight", empty(shape));
  bias = register_parameter("bias", options.bias() ? empty({out}) : Tensor());
  reset_parameters();
}

template <typename Size>
void ConvImpl<Size>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

template <typename Size>
Tensor ConvImpl<Size>::forward(const Tensor& input) {
  if constexpr (std::is_same_v<Size, Size2>) {
    return functional::conv2d(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                              options.groups());
  } else {
    return functional::conv1d(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                              options.groups());
  }
}

template <typename Size>
void ConvImpl<Size>::pretty_print(std::ostream& stream) const {
  stream << fmt::format("{}({}, {}, kernel_size={}, stride={}", name(), options.in_channels(), options.out_channels(),
                        printed(options.kernel_size()), printed(options.stride()));
  if (!(options.padding() == Size(0))) stream << fmt::format(", padding={}", printed(options.padding()));
  if (!(options.dilation() == Size(1))) stream << fmt::format(", dilation={}", printed(options.dilation()));
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template class ConvImpl<int64_t>;
template class ConvImpl<Size2>;

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
