#include "data/transforms/compose.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::data {

Compose::Compose(std::vector<Transform> transforms) : transforms_(std::move(transforms)) {
  for (size_t i = 0; i < transforms_.size(); ++i) {
    BRISK_CHECK(static_cast<bool>(transforms_[i]), "Compose: transform {} is empty", i);
  }
}

Tensor Compose::operator()(const Tensor& x) const {
  Tensor y = x;
  for (const Transform& t : transforms_) y = t(y);
  return y;
}

}  // namespace brisk::data
