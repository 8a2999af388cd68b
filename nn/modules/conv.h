#pragma once
// nn::Conv2d: 2-D convolution over NCHW (or CHW) inputs with zero padding, as
// torch.nn.Conv2d:
//
//   nn::Conv2d conv(nn::Conv2dOptions(1, 6, 5).padding(2));
#include <cstdint>
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/size2.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  BRISK_ARG(int64_t, in_channels);
  BRISK_ARG(int64_t, out_channels);
  BRISK_ARG(Size2, kernel_size);
  BRISK_ARG(Size2, stride) = 1;
  BRISK_ARG(Size2, padding) = 0;
  BRISK_ARG(Size2, dilation) = 1;
  BRISK_ARG(int64_t, groups) = 1;
  BRISK_ARG(bool, bias) = true;
};

class Conv2dImpl : public Module {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);

  Tensor forward(const Tensor& input) override;
  // PyTorch's initialization (nn/modules/conv_parameters.h), fan_in = in_channels / groups * kH * kW.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Conv2dOptions options;
  Tensor weight;  // [out_channels, in_channels / groups, kH, kW]
  Tensor bias;    // [out_channels], undefined without bias
};

BRISK_MODULE(Conv2d);

}  // namespace brisk::nn
