#pragma once
// nn::Conv1d and nn::Conv2d: convolution over NCL (or CL) and NCHW (or CHW) inputs with zero
// padding, as torch.nn.Conv1d and torch.nn.Conv2d:
//
//   nn::Conv2d conv(nn::Conv2dOptions(1, 6, 5).padding(2));
//   nn::Conv1d seq(nn::Conv1dOptions(16, 32, 3).padding(1));  // x [N, 16, L] -> [N, 32, L]
//
// nn::ConvTranspose2d: the transposed 2-D convolution over NCHW (or CHW) inputs, as
// torch.nn.ConvTranspose2d: the gradient of a Conv2d with the same geometry, used to upsample
// in decoders and generators:
//
//   nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(64, 32, 4).stride(2).padding(1));
//   Tensor y = up(x);  // x [N, 64, H, W] -> y [N, 32, 2H, 2W]
#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <vector>

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
  // PyTorch's initialization (_ConvNd.reset_parameters): weight ~ kaiming_uniform_(a =
  // sqrt(5)) and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups *
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

struct ConvTranspose2dOptions {
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  BRISK_ARG(int64_t, in_channels);
  BRISK_ARG(int64_t, out_channels);
  BRISK_ARG(Size2, kernel_size);
  BRISK_ARG(Size2, stride) = 1;
  // Removed from each side of the output (the padding of the matching Conv2d).
  BRISK_ARG(Size2, padding) = 0;
  // Added at the bottom and right of the output, below the stride or the dilation: picks
  // among the output sizes that the matching Conv2d maps to the same input size.
  BRISK_ARG(Size2, output_padding) = 0;
  BRISK_ARG(int64_t, groups) = 1;
  BRISK_ARG(bool, bias) = true;
  BRISK_ARG(Size2, dilation) = 1;
};

class ConvTranspose2dImpl : public Module {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options);

  Tensor forward(const Tensor& input) override;
  // forward(input) with the output_padding that makes the output's [H, W] the last two values
  // of output_size (which may be [N, C, H, W] or [H, W]), as PyTorch's forward(input,
  // output_size): to undo a strided Conv2d whose stride did not divide its input's size.
  Tensor forward(const Tensor& input, const std::vector<int64_t>& output_size);
  // As Conv2d's, fan_in = out_channels / groups * kH * kW.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  ConvTranspose2dOptions options;
  Tensor weight;  // [in_channels, out_channels / groups, kH, kW]
  Tensor bias;    // [out_channels], undefined without bias
};

BRISK_MODULE(ConvTranspose2d);

}  // namespace brisk::nn
