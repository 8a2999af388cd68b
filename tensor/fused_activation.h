#pragma once
// An activation that a normalization kernel applies to its own output, so that
// batch_norm + ReLU (or GELU) is one kernel forward and one backward instead of two each
// (nn::BatchNormOptions::activation, nn::functional::batch_norm).
#include <cstdint>

#include "brisk/requires_cxx17.h"

namespace brisk {

enum class FusedActivation : uint8_t {
  None,
  Relu,  // max(x, 0); its gradient is masked by the saved output (> 0)
  Gelu,  // x * Phi(x), the exact (erf) form; its gradient reads the pre-activation value
};

// "none", "relu" or "gelu".
inline const char* fused_activation_name(FusedActivation a) {
  switch (a) {
    case FusedActivation::Relu: return "relu";
    case FusedActivation::Gelu: return "gelu";
    default: return "none";
  }
}

}  // namespace brisk
