#include "examples/extending/residual_block.h"

namespace brisk::examples {

ResidualBlockImpl::ResidualBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride) {
  auto conv3x3 = [](int64_t in, int64_t out, int64_t s) {
    return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(s).padding(1).bias(false));
  };
  conv1 = register_module("conv1", conv3x3(in_channels, out_channels, stride));
  bn1 = register_module("bn1", nn::BatchNorm2d(out_channels));
  conv2 = register_module("conv2", conv3x3(out_channels, out_channels, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(out_channels));
  if (stride != 1 || in_channels != out_channels) {
    projection = register_module(
        "projection",
        nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 1).stride(stride).bias(false)),
                       nn::BatchNorm2d(out_channels)));
  }
}

Tensor ResidualBlockImpl::forward(const Tensor& x) {
  Tensor h = relu(bn1(conv1(x)));
  h = bn2(conv2(h));
  return relu(h + (projection ? projection(x) : x));
}

}  // namespace brisk::examples
