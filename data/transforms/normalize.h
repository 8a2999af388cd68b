#pragma once
// Per-channel standardization of a float image [..., C, H, W]: (x - mean[c]) / std[c]
// (torchvision.transforms.Normalize). A single mean or std applies to every channel.
#include <type_traits>
#include <utility>
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

namespace transforms {

// libtorch's spelling of the same transform, torch::data::transforms::Normalize<>(0.1307, 0.3081).
// Target is libtorch's example target type; Brisk's examples have tensor targets only.
template <typename Target = Tensor>
class Normalize : public data::Normalize {
 public:
  static_assert(std::is_same_v<Target, Tensor>, "transforms::Normalize: Brisk's example targets are tensors");
  Normalize(double mean, double stddev) : data::Normalize({mean}, {stddev}) {}
  Normalize(std::vector<double> mean, std::vector<double> stddev)
      : data::Normalize(std::move(mean), std::move(stddev)) {}
};

}  // namespace transforms
}  // namespace brisk::data
