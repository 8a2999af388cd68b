#include "models/resnet18.h"

#include "models/basic_block.h"
#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

ResNet18Impl::ResNet18Impl(const ResNet18Options& options_) : options(options_) {
  const int64_t w = options.width();
  BRISK_CHECK(w > 0, "ResNet18: width must be positive, got {}", w);
  conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, w, 3).padding(1).bias(false)));
  bn1 = register_module("bn1", nn::BatchNorm2d(w));
  layer1 = register_module("layer1", basic_block_stage(2, w, w, 1, Shortcut::Projection));
  layer2 = register_module("layer2", basic_block_stage(2, w, 2 * w, 2, Shortcut::Projection));
  layer3 = register_module("layer3", basic_block_stage(2, 2 * w, 4 * w, 2, Shortcut::Projection));
  layer4 = register_module("layer4", basic_block_stage(2, 4 * w, 8 * w, 2, Shortcut::Projection));
  linear = register_module("linear", nn::Linear(8 * w, options.num_classes()));
}

Tensor ResNet18Impl::forward(const Tensor& images) {
  Tensor x = F::relu(bn1(conv1(images)));
  x = layer4(layer3(layer2(layer1(x))));
  return linear(F::flatten(F::adaptive_avg_pool2d(x, 1), 1));
}

}  // namespace brisk::models
