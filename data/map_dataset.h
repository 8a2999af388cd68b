#pragma once
// datasets::MapDataset: a dataset held by value, in the shape libtorch's datasets have, so that
// a libtorch program's pipeline reads the same:
//
//   auto train = data::datasets::MNIST(root)
//                    .map(data::transforms::Normalize<>(0.1307, 0.3081))
//                    .map(data::transforms::Stack<>());
//   auto loader = data::make_data_loader(std::move(train), data::DataLoaderOptions().batch_size(64));
//
// It shares a brisk::data::Dataset (the DataLoader takes that one); map() returns a new
// MapDataset whose examples have the transform applied to their data (a TransformDataset).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "data/dataset.h"
#include "data/example.h"
#include "data/transforms/stack.h"
#include "data/transforms/transform.h"

namespace brisk::data::datasets {

using data::Dataset;

class MapDataset {
 public:
  // Raises brisk::Error when `dataset` is null.
  MapDataset(std::shared_ptr<const Dataset> dataset);

  // The examples with `transform` applied to each one's data (libtorch's tensor transforms:
  // Normalize<>, TensorLambda<>, or any Brisk transform).
  MapDataset map(Transform transform) const;
  // The same dataset: Brisk's DataLoader always stacks (data/transforms/stack.h).
  template <typename ExampleType>
  MapDataset map(const transforms::Stack<ExampleType>&) const {
    return *this;
  }

  // As libtorch's: the number of examples, always known here.
  std::optional<size_t> size() const { return static_cast<size_t>(dataset_->size()); }
  Example get(size_t index) const { return dataset_->get(static_cast<int64_t>(index)); }
  const std::shared_ptr<const Dataset>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
};

}  // namespace brisk::data::datasets
