#include "data/map_dataset.h"

#include <utility>

#include "data/transform_dataset.h"
#include "tensor/error.h"

namespace brisk::data::datasets {

MapDataset::MapDataset(std::shared_ptr<const data::Dataset> dataset) : dataset_(std::move(dataset)) {
  BRISK_CHECK(dataset_ != nullptr, "datasets::MapDataset: the dataset is null");
}

MapDataset MapDataset::map(Transform transform) const {
  BRISK_CHECK(transform != nullptr, "datasets::MapDataset::map: the transform is empty");
  return MapDataset(std::make_shared<TransformDataset>(dataset_, std::move(transform)));
}

}  // namespace brisk::data::datasets
