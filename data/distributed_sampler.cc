#include "data/distributed_sampler.h"

#include <numeric>

#include "data/torch_randperm.h"
#include "tensor/error.h"

namespace brisk::data {

DistributedSampler::DistributedSampler(int64_t dataset_size, int64_t num_replicas, int64_t rank,
                                       DistributedSamplerOptions options)
    : dataset_size_(dataset_size), num_replicas_(num_replicas), rank_(rank), options_(options) {
  BRISK_CHECK(dataset_size >= 0, "DistributedSampler: dataset size must be non-negative, got {}", dataset_size);
  BRISK_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got {}", num_replicas);
  BRISK_CHECK(rank >= 0 && rank < num_replicas, "DistributedSampler: rank {} is outside [0, {})", rank, num_replicas);
  num_samples_ = options.drop_last() ? dataset_size / num_replicas : (dataset_size + num_replicas - 1) / num_replicas;
}

std::vector<int64_t> DistributedSampler::indices() const {
  std::vector<int64_t> order;
  if (options_.shuffle()) {
    order = torch_randperm(dataset_size_, options_.seed() + static_cast<uint64_t>(epoch_));
  } else {
    order.resize(static_cast<size_t>(dataset_size_));
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(num_samples_));
  // Position p of the padded order is order[p % dataset_size]: padding repeats the order
  // from its start, as many times as needed.
  for (int64_t p = rank_; p < total_size(); p += num_replicas_)
    mine.push_back(order[static_cast<size_t>(p % dataset_size_)]);
  return mine;
}

}  // namespace brisk::data
