#pragma once
// The initialization that every convolution module shares (PyTorch's
// _ConvNd.reset_parameters): weight ~ kaiming_uniform_(a = sqrt(5)) and the bias from
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.size(1) * the kernel's elements (for a
// transposed convolution, whose weight is [in, out / groups, ...], that is out / groups * kernel).
#include "tensor/tensor.h"

namespace brisk::nn {

// bias may be undefined.
void reset_conv_parameters(const Tensor& weight, const Tensor& bias);

}  // namespace brisk::nn
