#pragma once
// DistributedSampler: the share of each epoch that one of num_replicas processes loads, as
// torch.utils.data.DistributedSampler, index for index:
//
//   auto sampler = std::make_shared<data::DistributedSampler>(
//       dataset->size(), world_size, rank, data::DistributedSamplerOptions().seed(42));
//   data::DataLoader loader(dataset, sampler, data::DataLoaderOptions().batch_size(64));
//
// An epoch's order is 0 .. size-1, or with shuffle torch.randperm(size) from a generator seeded
// seed + epoch (data/torch_randperm.h: the same permutation PyTorch draws). It is then
// padded by repeating its start until it divides evenly over the replicas, or with
// drop_last cut to the largest length that does; rank r takes positions r, r + n, r + 2n, ...
// Every rank must use the same seed, and call set_epoch (the DataLoader does) with the same
// epoch, for the shares to be disjoint.
#include <cstdint>

#include "data/sampler.h"

namespace brisk::data {

// Chained like DataLoaderOptions: DistributedSamplerOptions().shuffle(false).drop_last(true).
class DistributedSamplerOptions {
 public:
  // clang-format off
  // A new order every epoch (default true, as PyTorch).
  bool shuffle() const { return shuffle_; }
  DistributedSamplerOptions shuffle(bool s) const { auto o = *this; o.shuffle_ = s; return o; }
  // The shuffling seed, the same on every rank (default 0, as PyTorch).
  uint64_t seed() const { return seed_; }
  DistributedSamplerOptions seed(uint64_t s) const { auto o = *this; o.seed_ = s; return o; }
  // Drop the tail that does not divide evenly instead of padding (default false).
  bool drop_last() const { return drop_last_; }
  DistributedSamplerOptions drop_last(bool d) const { auto o = *this; o.drop_last_ = d; return o; }
  // clang-format on

 private:
  bool shuffle_ = true;
  uint64_t seed_ = 0;
  bool drop_last_ = false;
};

class DistributedSampler : public Sampler {
 public:
  // dataset_size examples shared by num_replicas processes; this one is `rank`.
  DistributedSampler(int64_t dataset_size, int64_t num_replicas, int64_t rank, DistributedSamplerOptions options = {});

  std::vector<int64_t> indices() const override;
  // Indices per rank and epoch: ceil(dataset_size / num_replicas), or with drop_last
  // floor(dataset_size / num_replicas).
  int64_t size() const override { return num_samples_; }
  // Indices per epoch over all ranks: size() * num_replicas.
  int64_t total_size() const { return num_samples_ * num_replicas_; }

  int64_t dataset_size() const { return dataset_size_; }
  int64_t num_replicas() const { return num_replicas_; }
  int64_t rank() const { return rank_; }
  const DistributedSamplerOptions& options() const { return options_; }

 private:
  int64_t dataset_size_;
  int64_t num_replicas_;
  int64_t rank_;
  DistributedSamplerOptions options_;
  int64_t num_samples_;
};

}  // namespace brisk::data
