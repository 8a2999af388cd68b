#pragma once
// Several transforms applied one after another (torchvision.transforms.Compose).
#include <vector>

#include "data/transforms/transform.h"

namespace brisk::data {

class Compose {
 public:
  explicit Compose(std::vector<Transform> transforms);
  Tensor operator()(const Tensor& x) const;

 private:
  std::vector<Transform> transforms_;
};

}  // namespace brisk::data
