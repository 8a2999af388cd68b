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
#include "tensor/arg.h"

namespace brisk::data {

// Chained like DataLoaderOptions: DistributedSamplerOptions().shuffle(false).drop_last(true).
struct DistributedSamplerOptions {
  // A new order every epoch (default true, as PyTorch).
  BRISK_ARG(bool, shuffle) = true;
  // The shuffling seed, the same on every rank (default 0, as PyTorch).
  BRISK_ARG(uint64_t, seed) = 0;
  // Drop the tail that does not divide evenly instead of padding.
  BRISK_ARG(bool, drop_last) = false;
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
