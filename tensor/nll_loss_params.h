#pragma once
// The options of the fused nll_loss kernels (Backend::nll_loss, Backend::nll_loss_backward).
#include <cstdint>

namespace brisk {

// How nll_loss reduces its per-element losses: nn::Reduction's three, at the tensor layer.
enum class LossReduction { None, Mean, Sum };

struct NllLossParams {
  LossReduction reduction = LossReduction::Mean;
  int64_t ignore_index = -100;
  // The number the forward writes into its target record with the call's first bad target
  // (nn/functional/class_targets.h): the call's place since the last deferred check.
  int64_t call = 0;
};

}  // namespace brisk
