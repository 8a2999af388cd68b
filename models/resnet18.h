#pragma once
// models::ResNet18: ResNet-18 (He et al. 2016) in its CIFAR variant, as in the widely used
// kuangliu/pytorch-cifar: the ImageNet network's 7x7 stride-2 stem and max pool replaced by one
// 3x3 convolution, so 32x32 images keep their resolution through the first stage.
//
//   conv 3->64 3x3 pad 1, BN, ReLU                        [N, 64, 32, 32]
//   layer1: 2 BasicBlocks at 64                           [N, 64, 32, 32]
//   layer2: 2 BasicBlocks at 128, the first of stride 2   [N, 128, 16, 16]
//   layer3: 2 BasicBlocks at 256, the first of stride 2   [N, 256, 8, 8]
//   layer4: 2 BasicBlocks at 512, the first of stride 2   [N, 512, 4, 4]
//   global average pool, linear 512->num_classes
//
// Where a block changes the shape its shortcut is a 1x1 convolution + BN (option B,
// models/basic_block.h). 11,173,962 parameters with 10 classes. Weights start with PyTorch's
// defaults, as in the reference. `width` scales every stage (64 is ResNet-18 itself; the
// stages have width, 2, 4 and 8 times width channels), for small variants in tests and demos.
// Names are PyTorch's (models/torch_twins.py, ResNet18): conv1, bn1, layer1.0.conv1, ...,
// layer2.0.shortcut.0 (the projection's conv), layer2.0.shortcut.1 (its BN), ..., linear.
//
//   models::ResNet18 model;                   // 10 classes
//   Tensor logits = model->forward(images);  // images [N, 3, 32, 32] -> [N, 10]
#include <cstdint>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "tensor/arg.h"

namespace brisk::models {

struct ResNet18Options {
  BRISK_ARG(int64_t, num_classes) = 10;
  BRISK_ARG(int64_t, width) = 64;
};

class ResNet18Impl : public nn::Module {
 public:
  explicit ResNet18Impl(const ResNet18Options& options = ResNet18Options());

  Tensor forward(const Tensor& images) override;

  ResNet18Options options;
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};  // of models::BasicBlock
  nn::Linear linear{nullptr};
};

BRISK_MODULE(ResNet18);

}  // namespace brisk::models
