#pragma once
// The length of one output dim of conv_transpose2d, shared by the op and by
// ConvTranspose2d::forward(input, output_size). Internal to nn.
#include <cstdint>

namespace brisk::nn::functional {

// Each input step moves the kernel's window by the stride; padding comes off both ends and
// output_padding is added at the end.
inline int64_t conv_transpose_output_length(int64_t in, int64_t kernel, int64_t stride, int64_t padding,
                                            int64_t dilation, int64_t output_padding) {
  return (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1;
}

}  // namespace brisk::nn::functional
