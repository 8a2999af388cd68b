#include "nn/modules/conv.h"

#include <ostream>
#include <vector>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/conv_parameters.h"

namespace brisk::nn {
namespace {

// A size as PyTorch prints it: one number for Conv1d, a pair for Conv2d.
int64_t printed(int64_t size) { return size; }
Pair printed(const Size2& size) { return size.pair(); }

std::vector<int64_t> kernel_dims(int64_t size) { return {size}; }
std::vector<int64_t> kernel_dims(const Size2& size) { return {size[0], size[1]}; }

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

}  // namespace brisk::nn
