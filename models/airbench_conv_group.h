#pragma once
// models::AirbenchConvGroup: the block of the airbench CIFAR-10 speed-run networks
// (models/airbench_net.h), which halves the resolution:
//
//   conv 3x3 pad 1 (no bias), max-pool 2, BN, GELU, conv 3x3 pad 1 (no bias), BN, GELU
//
// Pooling right after the first convolution makes the rest of the block 4x cheaper. The BNs
// take airbench's settings: eps 1e-12 and momentum 0.4 (PyTorch's convention: the weight of
// the new batch; airbench writes it as 0.6 for the old running value). Each convolution
// starts with PyTorch's default initialization, then its first min(in, out) filters are set
// to the identity (torch.nn.init.dirac_), as airbench does, so the block starts close to
// passing its input through. Names as in airbench: conv1, norm1, conv2, norm2.
#include <cstdint>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"

namespace brisk::models {

class AirbenchConvGroupImpl : public nn::Module {
 public:
  AirbenchConvGroupImpl(int64_t in_channels, int64_t out_channels);

  // [N, in, H, W] -> [N, out, H / 2, W / 2]
  Tensor forward(const Tensor& x) override;

  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d norm1{nullptr}, norm2{nullptr};
};

BRISK_MODULE(AirbenchConvGroup);

}  // namespace brisk::models
