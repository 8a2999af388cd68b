#pragma once
// Extending Brisk, way (a): a new layer built from existing modules and ops. Everything
// (forward, gradients, state_dict, to(), printing) comes from the parts; see
// docs/extending.md.
//
// A ResNet basic block: conv-bn-relu-conv-bn plus the input, then relu. When the block changes
// the channel count or the resolution, the shortcut is a strided 1x1 conv-bn projection.
#include <cstdint>

#include "nn/nn.h"

namespace brisk::examples {

class ResidualBlockImpl : public nn::Module {
 public:
  ResidualBlockImpl(int64_t in_channels, int64_t out_channels, int64_t stride = 1);

  Tensor forward(const Tensor& x);

  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  // Empty when the shortcut is the identity.
  nn::Sequential projection{nullptr};
};

BRISK_MODULE(ResidualBlock);

}  // namespace brisk::examples
