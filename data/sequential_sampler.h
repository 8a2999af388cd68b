#pragma once
// 0, 1, ..., n - 1 every epoch (torch.utils.data.SequentialSampler).
#include "data/sampler.h"

namespace brisk::data {

class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t size);
  std::vector<int64_t> indices() const override;
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
};

}  // namespace brisk::data
