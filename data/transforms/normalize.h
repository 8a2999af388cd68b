#pragma once
// Per-channel standardization of a float image [..., C, H, W]: (x - mean[c]) / std[c]
// (torchvision.transforms.Normalize). A single mean or std applies to every channel.
#include <vector>

#include "data/transforms/transform.h"

namespace brisk::data {

class Normalize {
 public:
  // Raises brisk::Error when mean or std is empty or a std is zero.
  Normalize(std::vector<double> mean, std::vector<double> std);
  // Raises brisk::Error unless `image` is floating point with at least 3 dims and C matches
  // the number of means and stds (or they have one value each).
  Tensor operator()(const Tensor& image) const;

 private:
  std::vector<double> mean_;
  std::vector<double> std_;
};

}  // namespace brisk::data
