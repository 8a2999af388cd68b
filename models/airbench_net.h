#pragma once
// models::AirbenchNet: a small fast CIFAR-10 network after Keller Jordan's airbench94
// (github.com/KellerJordan/airbench, airbench94.py; about 94% test accuracy in a few seconds
// of GPU training with its recipe):
//
//   conv 3->24 2x2 (no padding, bias), GELU       [N, 24, 31, 31]
//   group1: AirbenchConvGroup 24->64              [N, 64, 15, 15]
//   group2: AirbenchConvGroup 64->256             [N, 256, 7, 7]
//   group3: AirbenchConvGroup 256->256            [N, 256, 3, 3]
//   max-pool 3, flatten, linear 256->num_classes (no bias), times 1/9
//
// with the groups of models/airbench_conv_group.h. 1,972,792 parameters at the default widths.
// `stem` is an ordinary trainable convolution and the BN weights train (docs/training.md,
// "CIFAR-10", lists what differs from airbench94). The layers map onto airbench's
// nn.Sequential as 0 -> stem, 2/3/4 -> group1/2/3, 7 -> linear. Names are PyTorch's
// (models/torch_twins.py, AirbenchNet): stem, group1.conv1, group1.norm1, ..., linear.
//
//   models::AirbenchNet model;                // or AirbenchNetOptions().widths({32, 64, 128})
//   Tensor logits = model->forward(images);  // images [N, 3, 32, 32] -> [N, 10]
#include <array>
#include <cstdint>

#include "models/airbench_conv_group.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/conv.h"
#include "nn/modules/linear.h"
#include "tensor/arg.h"

namespace brisk::models {

struct AirbenchNetOptions {
  // The output channels of group1, group2 and group3 (airbench94's block1..block3).
  using Widths = std::array<int64_t, 3>;
  BRISK_ARG(Widths, widths) = {64, 256, 256};
  BRISK_ARG(int64_t, num_classes) = 10;
};

class AirbenchNetImpl : public nn::Module {
 public:
  explicit AirbenchNetImpl(const AirbenchNetOptions& options = AirbenchNetOptions());

  Tensor forward(const Tensor& images) override;

  // airbench's fixed scale of the logits ("scaling_factor"), in place of a temperature.
  static constexpr double kLogitScale = 1.0 / 9.0;
  // The stem's output channels: airbench's whitening width, 2 * 3 * 2 * 2.
  static constexpr int64_t kStemChannels = 24;

  AirbenchNetOptions options;
  nn::Conv2d stem{nullptr};
  AirbenchConvGroup group1{nullptr}, group2{nullptr}, group3{nullptr};
  nn::Linear linear{nullptr};
};

BRISK_MODULE(AirbenchNet);

}  // namespace brisk::models
