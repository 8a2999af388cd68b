#pragma once
// Samplers choose which dataset indices an epoch loads, and in which order
// (torch.utils.data.Sampler). The DataLoader selects the epoch before every iteration and then
// calls indices() once, so a sampler can give each epoch its own order, or, for distributed
// training, each process its own share of it (DistributedSampler, data/distributed_sampler.h).
#include <cstdint>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::data {

class DataLoader;

class Sampler {
 public:
  virtual ~Sampler() = default;

  // The indices of the current epoch, in loading order; size() of them.
  virtual std::vector<int64_t> indices() const = 0;
  // How many indices an epoch has (len(sampler)).
  virtual int64_t size() const = 0;

  // Selects the epoch whose indices indices() returns. A DataLoader over this sampler loads
  // this epoch next: an epoch chosen here wins over the loader's own count, as in PyTorch,
  // where the sampler's set_epoch is the only way to choose one.
  void set_epoch(int64_t epoch) {
    epoch_ = epoch;
    epoch_chosen_ = true;
  }
  int64_t epoch() const { return epoch_; }
  // Whether set_epoch was called since a DataLoader last started an epoch of this sampler.
  bool epoch_chosen() const { return epoch_chosen_; }

 protected:
  int64_t epoch_ = 0;

 private:
  friend class DataLoader;
  // The DataLoader starting `epoch` (what epoch_chosen() makes it): no longer a pending choice.
  void start_epoch(int64_t epoch) {
    epoch_ = epoch;
    epoch_chosen_ = false;
  }

  bool epoch_chosen_ = false;
};

// 0, 1, ..., n - 1 every epoch (torch.utils.data.SequentialSampler).
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t size);
  std::vector<int64_t> indices() const override;
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
};

// A random permutation of 0, ..., n - 1, a different one every epoch
// (torch.utils.data.RandomSampler without replacement). The permutation depends only on the
// seed and the epoch: set_epoch(e) on two samplers of the same seed gives the same order.
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

// libtorch's namespace of the same samplers (torch::data::samplers::SequentialSampler).
namespace samplers {
using data::RandomSampler;
using data::SequentialSampler;
using data::Sampler;
}  // namespace samplers

}  // namespace brisk::data
