#pragma once
// models::BasicBlock: the residual block of ResNet-18/34 and of the CIFAR ResNets (He et al.
// 2016, "Deep Residual Learning for Image Recognition"), two 3x3 convolutions:
//
//   out = relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x))
//
// conv1 has the block's stride; neither convolution has a bias (the BN after it has one).
// When the block keeps the shape (stride 1, in == out channels) the shortcut is the identity;
// otherwise it is one of the paper's two choices:
//   - Shortcut::ZeroPad (option A, the paper's CIFAR networks): parameter free, the input
//     subsampled as x[:, :, ::stride, ::stride] with zero channels added, half before and
//     half after the input's (as the common reference, akamaster/pytorch_resnet_cifar10).
//   - Shortcut::Projection (option B, ResNet-18 and the ImageNet networks): a 1x1
//     convolution with the block's stride and a BN, as `shortcut.0` and `shortcut.1`.
//
//   models::BasicBlock block(models::BasicBlockOptions(16, 32).stride(2).shortcut(models::Shortcut::ZeroPad));
//   Tensor y = block(x);  // [N, 16, 32, 32] -> [N, 32, 16, 16]
//   nn::Sequential layer2 = models::basic_block_stage(3, 16, 32, 2, models::Shortcut::ZeroPad);
#include <cstdint>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/sequential.h"
#include "tensor/arg.h"

namespace brisk::models {

enum class Shortcut { ZeroPad, Projection };

struct BasicBlockOptions {
  BasicBlockOptions(int64_t in_channels, int64_t out_channels)
      : in_channels_(in_channels), out_channels_(out_channels) {}
  BRISK_ARG(int64_t, in_channels);
  BRISK_ARG(int64_t, out_channels);
  BRISK_ARG(int64_t, stride) = 1;
  // Used only where the block changes the shape.
  BRISK_ARG(Shortcut, shortcut) = Shortcut::Projection;
};

class BasicBlockImpl : public nn::Module {
 public:
  explicit BasicBlockImpl(const BasicBlockOptions& options);

  Tensor forward(const Tensor& x) override;
  // Whether the shortcut is anything but the identity.
  bool changes_shape() const;

  BasicBlockOptions options;
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  // The projection [conv, BN]; empty for the identity and the zero-padding shortcut.
  nn::Sequential shortcut{nullptr};
};

BRISK_MODULE(BasicBlock);

// A ResNet stage: `blocks` BasicBlocks, the first from in_channels with `stride`, the others
// keeping out_channels and the resolution; named "0", "1", ... as in PyTorch's nn.Sequential.
nn::Sequential basic_block_stage(int64_t blocks, int64_t in_channels, int64_t out_channels, int64_t stride,
                                 Shortcut shortcut);

}  // namespace brisk::models
