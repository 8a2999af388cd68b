#pragma once
// A random permutation of 0, ..., n - 1, a different one every epoch
// (torch.utils.data.RandomSampler without replacement). The permutation depends only on the
// seed and the epoch: set_epoch(e) on two samplers of the same seed gives the same order.
#include <cstdint>

#include "data/sampler.h"

namespace brisk::data {

class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t size, uint64_t seed);
  std::vector<int64_t> indices() const override;
  int64_t size() const override { return size_; }
  uint64_t seed() const { return seed_; }

 private:
  int64_t size_;
  uint64_t seed_;
};

}  // namespace brisk::data
