#include "models/cifar_resnet.h"

#include "models/basic_block.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::models {

namespace F = nn::functional;

CIFARResNetImpl::CIFARResNetImpl(const CIFARResNetOptions& options_) : options(options_) {
  const int64_t depth = options.depth();
  BRISK_CHECK(depth >= 8 && (depth - 2) % 6 == 0,
              "CIFARResNet: depth must be 6n + 2 with n >= 1 (20, 32, 44, 56, 110, ...), got {}", depth);
  const int64_t n = (depth - 2) / 6;
  conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(nn::BatchNormOptions(16).activation(FusedActivation::Relu)));
  layer1 = register_module("layer1", basic_block_stage(n, 16, 16, 1, Shortcut::ZeroPad));
  layer2 = register_module("layer2", basic_block_stage(n, 16, 32, 2, Shortcut::ZeroPad));
  layer3 = register_module("layer3", basic_block_stage(n, 32, 64, 2, Shortcut::ZeroPad));
  linear = register_module("linear", nn::Linear(64, options.num_classes()));
  apply([](nn::Module& module) {
    if (auto* conv = module.as<nn::Conv2dImpl>()) nn::init::kaiming_normal_(conv->weight);
    if (auto* fc = module.as<nn::LinearImpl>()) nn::init::kaiming_normal_(fc->weight);
  });
}

Tensor CIFARResNetImpl::forward(const Tensor& images) {
  Tensor x = bn1(conv1(images));
  x = layer3(layer2(layer1(x)));
  return linear(F::flatten(F::adaptive_avg_pool2d(x, 1), 1));
}

CIFARResNet resnet20(int64_t num_classes) { return CIFARResNet(CIFARResNetOptions(20).num_classes(num_classes)); }
CIFARResNet resnet32(int64_t num_classes) { return CIFARResNet(CIFARResNetOptions(32).num_classes(num_classes)); }
CIFARResNet resnet56(int64_t num_classes) { return CIFARResNet(CIFARResNetOptions(56).num_classes(num_classes)); }

}  // namespace brisk::models
