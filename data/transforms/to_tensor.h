#pragma once
// An image as stored (H x W or H x W x C, channels last) to the layout networks take,
// C x H x W (torchvision.transforms.ToTensor):
//   uint8 [H, W]    -> float32 [1, H, W], values / 255 in [0, 1]
//   uint8 [H, W, C] -> float32 [C, H, W], values / 255 in [0, 1]
// Other dtypes are only rearranged to [C, H, W], keeping their values and dtype, as
// torchvision does for arrays that are not uint8.
#include "data/transforms/transform.h"

namespace brisk::data {

class ToTensor {
 public:
  Tensor operator()(const Tensor& image) const;
};

}  // namespace brisk::data
