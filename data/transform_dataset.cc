#include "data/transform_dataset.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::data {

TransformDataset::TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform,
                                   Transform target_transform)
    : dataset_(std::move(dataset)), transform_(std::move(transform)), target_transform_(std::move(target_transform)) {
  BRISK_CHECK(dataset_ != nullptr, "TransformDataset: the dataset is null");
}

Example<> TransformDataset::get(int64_t index) const {
  Example<> example = dataset_->get(index);
  if (transform_) example.data = transform_(example.data);
  if (target_transform_) example.target = target_transform_(example.target);
  return example;
}

}  // namespace brisk::data
