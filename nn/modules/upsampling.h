#pragma once
// nn::Upsample: resizes the spatial dims of its input, as torch.nn.Upsample, by
// F::interpolate (nearest or bilinear; nn/functional.h says how each picks its sources):
//
//   nn::Upsample up(nn::UpsampleOptions().scale_factor({2}).mode("bilinear").align_corners(false));
//   Tensor y = up(x);  // x [N, C, H, W] -> y [N, C, 2H, 2W]
#include <iosfwd>

#include "nn/functional.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::nn {

// size or scale_factor (exactly one), mode, align_corners and recompute_scale_factor.
using UpsampleOptions = functional::InterpolateOptions;

class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options);

  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  UpsampleOptions options;
};

BRISK_MODULE(Upsample);

}  // namespace brisk::nn
