#pragma once
// Batches of a dataset for a training loop (torch.utils.data.DataLoader):
//
//   data::DataLoader loader(dataset, data::DataLoaderOptions().batch_size(256).shuffle(true).num_workers(2));
//   for (int epoch = 0; epoch < 10; ++epoch) {
//     loader.set_epoch(epoch);  // optional: iterations count epochs 0, 1, 2, ... by themselves
//     for (data::Batch& batch : loader) train_step(batch.data, batch.target);
//   }
//
// Determinism: the batches of an epoch depend only on the seed, the epoch and the options
// other than num_workers: the same with 0 workers as with 8. The sampler orders the epoch
// from (seed, epoch), and every example is loaded with its own generator seeded from (seed,
// epoch, position in the epoch), which random transforms given no generator draw from
// (data/random.h); a transform of your own gets the same guarantee by drawing from
// data::sample_generator() too. Without an explicit seed the loader takes one from
// brisk::default_generator() when it is constructed, so brisk::manual_seed() fixes it, as
// torch.manual_seed does for PyTorch's DataLoader.
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "data/collate.h"
#include "data/dataset.h"
#include "data/sampler.h"
#include "tensor/arg.h"
#include "tensor/device.h"

namespace brisk::data {

class BatchProducer;

// Chained: DataLoaderOptions().batch_size(64).shuffle(true).
struct DataLoaderOptions {
  // DataLoaderOptions(64) as libtorch's: the batch size.
  DataLoaderOptions(int64_t batch_size = 1) : batch_size_(batch_size) {}
  // Examples per batch.
  BRISK_ARG(int64_t, batch_size);
  // A new random order every epoch (default: dataset order).
  BRISK_ARG(bool, shuffle) = false;
  // Leaves out the last batch of an epoch when it is smaller than batch_size.
  BRISK_ARG(bool, drop_last) = false;
  // Threads loading batches ahead of the training loop (default 0: the loop's own thread).
  BRISK_ARG(int, num_workers) = 0;

 public:
  // libtorch's name of num_workers.
  DataLoaderOptions& workers(int value) { return num_workers(value); }
  int workers() const { return num_workers(); }
  // Batches each worker may load ahead: num_workers * prefetch_factor batches are loaded or
  // waiting at most.
  BRISK_ARG(int64_t, prefetch_factor) = 2;
  // Batches in pinned host memory, for asynchronous copies to the GPU. Needs CUDA: without
  // it the DataLoader's constructor raises brisk::Error saying why.
  BRISK_ARG(bool, pin_memory) = false;
  // The CUDA device the batches are pinned for (PyTorch's pin_memory_device): the threads
  // that pin make it their current device, so that every rank pins in its own GPU's context
  // instead of creating one on GPU 0. Default: the current CUDA device of the thread that
  // constructs the DataLoader.
  BRISK_ARG(std::optional<Device>, pin_memory_device);
  // The seed of shuffling and of random transforms (default: drawn from
  // brisk::default_generator() by the DataLoader's constructor).
  BRISK_ARG(std::optional<uint64_t>, seed);
  // How examples become a batch (default: default_collate, which stacks them). Called on
  // worker threads.
  BRISK_ARG(Collate, collate) = default_collate;
};

class DataLoader {
 public:
  class Iterator;
  struct Sentinel {};

  // Samples in order, or in a RandomSampler's order when options.shuffle().
  explicit DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  // Samples in the order `sampler` gives (options.shuffle() must be false).
  DataLoader(std::shared_ptr<const Dataset> dataset, std::shared_ptr<Sampler> sampler, DataLoaderOptions options = {});

  // Batches per epoch (len(loader)).
  int64_t size() const;
  // The epoch the next iteration loads; each iteration then moves on to the next one. The
  // sampler's set_epoch chooses it too (as PyTorch programs do): the latest choice of either
  // wins over the count.
  void set_epoch(int64_t epoch) { sampler_->set_epoch(epoch); }
  int64_t epoch() const { return sampler_->epoch_chosen() ? sampler_->epoch() : epoch_; }
  uint64_t seed() const { return seed_; }
  const Dataset& dataset() const { return *dataset_; }
  Sampler& sampler() const { return *sampler_; }
  const DataLoaderOptions& options() const { return options_; }

  // Starts loading an epoch; the iterator holds it (and its workers) until destroyed.
  Iterator begin();
  Sentinel end() const { return {}; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<Sampler> sampler_;
  DataLoaderOptions options_;
  uint64_t seed_;
  std::optional<Device> pin_device_;  // set when pinning
  int64_t epoch_ = 0;                 // the count: one after the last epoch started
};

// An input iterator over the batches of one epoch. Dereferencing gives the current batch;
// ++ fetches the next, rethrowing a failure to load it (see data/batch_producer.h).
class DataLoader::Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Batch& operator*() { return *batch_; }
  Batch* operator->() { return &*batch_; }
  Iterator& operator++();
  bool operator==(Sentinel) const { return !batch_.has_value(); }
  bool operator!=(Sentinel) const { return batch_.has_value(); }
  // Index in the epoch of the current batch.
  int64_t index() const { return index_; }

 private:
  friend class DataLoader;
  explicit Iterator(std::shared_ptr<BatchProducer> producer);

  std::shared_ptr<BatchProducer> producer_;
  std::optional<Batch> batch_;
  int64_t index_ = 0;
};

}  // namespace brisk::data
