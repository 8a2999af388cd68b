#pragma once
// Some examples of another dataset, by index (torch.utils.data.Subset): example i is
// dataset[indices[i]].
//
//   auto first_half = std::make_shared<data::Subset>(dataset, data::index_range(0, dataset->size() / 2));
#include <cstdint>
#include <memory>
#include <vector>

#include "data/dataset.h"

namespace brisk::data {

class Subset : public Dataset {
 public:
  // Raises brisk::Error when `dataset` is null or an index is outside [0, dataset->size()).
  Subset(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices);

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get(int64_t index) const override;

  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::vector<int64_t> indices_;
};

// begin, begin + 1, ..., begin + length - 1.
std::vector<int64_t> index_range(int64_t begin, int64_t length);

}  // namespace brisk::data
