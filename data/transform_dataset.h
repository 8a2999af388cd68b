#pragma once
// The examples of another dataset with transforms applied as they are loaded (what
// torchvision's `transform=` and `target_transform=` arguments do):
//
//   auto train = std::make_shared<TransformDataset>(
//       std::make_shared<MNIST>(root), Compose({ToTensor(), Normalize({0.1307}, {0.3081})}));
#include <memory>

#include "data/dataset.h"
#include "data/transforms/transform.h"

namespace brisk::data {

class TransformDataset : public Dataset {
 public:
  // Either transform may be empty (nullptr) to leave that part as it is.
  TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform, Transform target_transform = nullptr);

  int64_t size() const override { return dataset_->size(); }
  Example<> get(int64_t index) const override;

 private:
  std::shared_ptr<const Dataset> dataset_;
  Transform transform_;
  Transform target_transform_;
};

}  // namespace brisk::data
