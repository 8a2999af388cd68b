#include "data/tensor_dataset.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::data {

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  BRISK_CHECK(data_.defined(), "TensorDataset: data is an undefined tensor");
  BRISK_CHECK(data_.dim() >= 1, "TensorDataset: data must have at least one dim (one row per example), got {}",
              data_.describe());
  if (target_.defined()) {
    BRISK_CHECK(target_.dim() >= 1, "TensorDataset: target must have at least one dim (one row per example), got {}",
                target_.describe());
    BRISK_CHECK(target_.size(0) == data_.size(0),
                "TensorDataset: data has {} rows but target has {} (data {}, target {})", data_.size(0),
                target_.size(0), data_.describe(), target_.describe());
  }
}

int64_t TensorDataset::size() const { return data_.size(0); }

Example<> TensorDataset::get(int64_t index) const {
  check_index("TensorDataset", index, size());
  return {data_.select(0, index), target_.defined() ? target_.select(0, index) : Tensor()};
}

}  // namespace brisk::data
