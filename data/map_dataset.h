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
#include "tensor/error.h"

namespace brisk::data::datasets {

class MapDataset {
 public:
  // Raises brisk::Error when `dataset` is null.
  MapDataset(std::shared_ptr<const data::Dataset> dataset);

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
  Example<> get(size_t index) const { return dataset_->get(static_cast<int64_t>(index)); }
  const std::shared_ptr<const data::Dataset>& dataset() const { return dataset_; }

 private:
  std::shared_ptr<const data::Dataset> dataset_;
};

// libtorch's base of a dataset of your own (torch::data::datasets::Dataset<Self>):
//
//   struct Squares : data::datasets::Dataset<Squares> {
//     data::Example<> get(size_t index) override { ... }
//     std::optional<size_t> size() const override { return 10; }
//   };
//   auto loader = data::make_data_loader(Squares().map(data::transforms::Stack<>()), options);
//
// map() moves the dataset into a MapDataset. The DataLoader's workers (num_workers > 0) call
// get() on that one object from several threads at once, so get() must not modify shared
// state; size() must be known.
template <typename Self, typename SingleExample = Example<>>
class Dataset {
 public:
  using ExampleType = SingleExample;

  virtual ~Dataset() = default;
  virtual ExampleType get(size_t index) = 0;
  virtual std::optional<size_t> size() const = 0;

  template <typename TransformType>
  MapDataset map(TransformType&& transform) && {
    return MapDataset(std::make_shared<const ByValue>(std::move(static_cast<Self&>(*this))))
        .map(std::forward<TransformType>(transform));
  }

 private:
  // The user's dataset as the data::Dataset the DataLoader reads.
  class ByValue : public data::Dataset {
   public:
    explicit ByValue(Self dataset) : dataset_(std::move(dataset)) {
      BRISK_CHECK(dataset_.size().has_value(), "datasets::Dataset: size() returned no size; the DataLoader needs one");
    }
    int64_t size() const override { return static_cast<int64_t>(*dataset_.size()); }
    Example<> get(int64_t index) const override {
      check_index("datasets::Dataset", index, size());
      return dataset_.get(static_cast<size_t>(index));
    }

   private:
    mutable Self dataset_;  // libtorch's get() is not const
  };
};

}  // namespace brisk::data::datasets
