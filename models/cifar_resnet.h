#pragma once
// models::CIFARResNet: the ResNets for 32x32 CIFAR images of He et al. 2016 ("Deep Residual
// Learning for Image Recognition", sec. 4.2), depth 6n + 2:
//
//   conv 3->16 3x3 pad 1, BN, ReLU                      [N, 16, 32, 32]
//   layer1: n BasicBlocks at 16 channels                [N, 16, 32, 32]
//   layer2: n BasicBlocks at 32, the first of stride 2  [N, 32, 16, 16]
//   layer3: n BasicBlocks at 64, the first of stride 2  [N, 64, 8, 8]
//   global average pool, linear 64->num_classes
//
// The shortcuts are the paper's option A (models/basic_block.h): parameter-free, so ResNet-20
// has 269,722 parameters, ResNet-32 464,154 and ResNet-56 853,018. Weights start with
// kaiming_normal_ (fan_in, gain sqrt(2)) for every convolution and the linear weight,
// PyTorch's defaults for the rest (docs/training.md, "CIFAR-10", says why). Names are
// PyTorch's (models/torch_twins.py, CIFARResNet): conv1, bn1, layer1.0.conv1, ...,
// layer3.{n-1}.bn2, linear.
//
//   models::CIFARResNet model = models::resnet20();  // or CIFARResNet(CIFARResNetOptions(110))
//   Tensor logits = model->forward(images);          // images [N, 3, 32, 32] -> [N, 10]
#include <cstdint>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "tensor/arg.h"

namespace brisk::models {

struct CIFARResNetOptions {
  // depth = 6n + 2: 20, 32, 44, 56, 110, ...
  explicit CIFARResNetOptions(int64_t depth) : depth_(depth) {}
  BRISK_ARG(int64_t, depth);
  BRISK_ARG(int64_t, num_classes) = 10;
};

class CIFARResNetImpl : public nn::Module {
 public:
  explicit CIFARResNetImpl(const CIFARResNetOptions& options);

  Tensor forward(const Tensor& images) override;

  CIFARResNetOptions options;
  nn::Conv2d conv1{nullptr};
  nn::BatchNorm2d bn1{nullptr};
  nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr};  // of models::BasicBlock
  nn::Linear linear{nullptr};
};

BRISK_MODULE(CIFARResNet);

CIFARResNet resnet20(int64_t num_classes = 10);
CIFARResNet resnet32(int64_t num_classes = 10);
CIFARResNet resnet56(int64_t num_classes = 10);

}  // namespace brisk::models
