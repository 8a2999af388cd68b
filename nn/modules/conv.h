#pragma once
// nn::Conv1d and nn::Conv2d: convolution over NCL (or CL) and NCHW (or CHW) inputs with zero
// padding, as torch.nn.Conv1d and torch.nn.Conv2d:
//
//   nn::Conv2d conv(nn::Conv2dOptions(1, 6, 5).padding(2));
//   nn::Conv1d seq(nn::Conv1dOptions(16, 32, 3).padding(1));  // x [N, 16, L] -> [N, 32, L]
#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/size2.h"
#include "tensor/arg.h"

namespace brisk::nn {

// Size: int64_t for Conv1d, Size2 (one number or {height, width}) for Conv2d.
template <typename Size>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, Size kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  BRISK_ARG(int64_t, in_channels);
  BRISK_ARG(int64_t, out_channels);
  BRISK_ARG(Size, kernel_size);
  BRISK_ARG(Size, stride) = 1;
  BRISK_ARG(Size, padding) = 0;
  BRISK_ARG(Size, dilation) = 1;
  BRISK_ARG(int64_t, groups) = 1;
  BRISK_ARG(bool, bias) = true;
};
using Conv1dOptions = ConvOptions<int64_t>;
using Conv2dOptions = ConvOptions<Size2>;

template <typename Size>
class ConvImpl : public Module {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, Size kernel_size)
      : ConvImpl(ConvOptions<Size>(in_channels, out_channels, kernel_size)) {}
  explicit ConvImpl(const ConvOptions<Size>& options);

  std::string name() const override { return std::is_same_v<Size, Size2> ? "Conv2d" : "Conv1d"; }
  Tensor forward(const Tensor& input) override;
  // PyTorch's initialization (nn/modules/conv_parameters.h), fan_in = in_channels / groups *
  // the kernel's elements.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<Size> options;
  Tensor weight;  // [out_channels, in_channels / groups, kernel_size...]
  Tensor bias;    // [out_channels], undefined without bias
};

extern template class ConvImpl<int64_t>;
extern template class ConvImpl<Size2>;
using Conv1dImpl = ConvImpl<int64_t>;
using Conv2dImpl = ConvImpl<Size2>;
BRISK_MODULE(Conv1d);
BRISK_MODULE(Conv2d);

}  // namespace brisk::nn
