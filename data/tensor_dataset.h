#pragma once
// A dataset over tensors already in memory: example i is row i of `data` and of `target`
// (torch.utils.data.TensorDataset with two tensors).
#include "data/dataset.h"

namespace brisk::data {

class TensorDataset : public Dataset {
 public:
  // Both tensors need at least one dim and the same size along dim 0. `target` may be
  // undefined for unlabelled data.
  TensorDataset(Tensor data, Tensor target = Tensor());

  int64_t size() const override;
  // Views of row `index` (no copy).
  Example<> get(int64_t index) const override;

  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_;
  Tensor target_;
};

}  // namespace brisk::data
