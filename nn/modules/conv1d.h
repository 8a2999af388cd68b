#pragma once
// nn::Conv1d: 1-D convolution over NCL (or CL) inputs with zero padding, as
// torch.nn.Conv1d:
//
//   nn::Conv1d conv(nn::Conv1dOptions(16, 32, 3).padding(1));
//   Tensor y = conv(x);  // x [N, 16, L] -> y [N, 32, L]
#include <cstdint>
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct Conv1dOptions {
  Conv1dOptions(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  BRISK_ARG(int64_t, in_channels);
  BRISK_ARG(int64_t, out_channels);
  BRISK_ARG(int64_t, kernel_size);
  BRISK_ARG(int64_t, stride) = 1;
  BRISK_ARG(int64_t, padding) = 0;
  BRISK_ARG(int64_t, dilation) = 1;
  BRISK_ARG(int64_t, groups) = 1;
  BRISK_ARG(bool, bias) = true;
};

class Conv1dImpl : public Module {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options);

  Tensor forward(const Tensor& input) override;
  // As Conv2d's (nn/modules/conv_parameters.h), fan_in = in_channels / groups * kernel_size.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Conv1dOptions options;
  Tensor weight;  // [out_channels, in_channels / groups, kernel_size]
  Tensor bias;    // [out_channels], undefined without bias
};

BRISK_MODULE(Conv1d);

}  // namespace brisk::nn
