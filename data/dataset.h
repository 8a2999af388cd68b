#pragma once
// A map-style dataset: a fixed number of examples, each loadable by its index; and Subset,
// some examples of another.
#include <cstdint>
#include <memory>
#include <vector>

#include "data/example.h"

namespace brisk::data {

class Dataset {
 public:
  virtual ~Dataset() = default;

  // Number of examples (len(dataset)).
  virtual int64_t size() const = 0;
  // The example at `index`, in [0, size()); raises brisk::Error for any other index.
  // DataLoader workers call this concurrently from several threads, so it must not modify
  // shared state.
  virtual Example<> get(int64_t index) const = 0;
};

// Raises brisk::Error unless 0 <= index < size, naming the dataset, e.g.
// "MNIST: index 60000 is out of range for a dataset of 60000 examples".
void check_index(const char* dataset, int64_t index, int64_t size);

// Some examples of another dataset, by index (torch.utils.data.Subset): example i is
// dataset[indices[i]].
//
//   auto first_half = std::make_shared<data::Subset>(dataset, data::index_range(0, dataset->size() / 2));
class Subset : public Dataset {
 public:
  // Raises brisk::Error when `dataset` is null or an index is outside [0, dataset->size()).
  Subset(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices);

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example<> get(int64_t index) const override;

  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::vector<int64_t> indices_;
};

// begin, begin + 1, ..., begin + length - 1.
std::vector<int64_t> index_range(int64_t begin, int64_t length);

}  // namespace brisk::data
