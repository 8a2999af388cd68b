#include "data/dataset.h"

#include <numeric>
#include <utility>

#include "tensor/error.h"

namespace brisk::data {

void check_index(const char* dataset, int64_t index, int64_t size) {
  BRISK_CHECK(index >= 0 && index < size, "{}: index {} is out of range for a dataset of {} examples", dataset, index,
              size);
}

Subset::Subset(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  BRISK_CHECK(dataset_ != nullptr, "Subset: the dataset is null");
  for (int64_t index : indices_) check_index("Subset", index, dataset_->size());
}

Example<> Subset::get(int64_t index) const {
  check_index("Subset", index, size());
  return dataset_->get(indices_[index]);
}

std::vector<int64_t> index_range(int64_t begin, int64_t length) {
  std::vector<int64_t> indices(length);
  std::iota(indices.begin(), indices.end(), begin);
  return indices;
}

}  // namespace brisk::data
