#include "data/data_loader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "data/batch_producer.h"
#include "data/pin_memory.h"
#include "data/random.h"
#include "profiler/record.h"
#include "tensor/error.h"

namespace brisk::data {
namespace {

// What the workers of one epoch need, shared by them and independent of the DataLoader,
// which may be destroyed while an iterator still runs.
struct EpochPlan {
  std::shared_ptr<const Dataset> dataset;
  std::vector<int64_t> indices;
  int64_t batch_size;
  uint64_t seed;  // of the epoch: example p of the epoch draws from derive_seed(seed, p)
  Collate collate;
  std::optional<Device> pin_device;  // pin batches for this CUDA device
};

Batch load_batch(const EpochPlan& plan, int64_t batch) {
  profiler::RecordScope scope(profiler::Category::DataLoading, "DataLoader.load_batch", [&] {
    return profiler::Args{{"batch", std::to_string(batch)}};
  });
  int64_t begin = batch * plan.batch_size;
  int64_t end = std::min<int64_t>(begin + plan.batch_size, static_cast<int64_t>(plan.indices.size()));
  std::vector<Example<>> examples;
  examples.reserve(static_cast<size_t>(end - begin));
  for (int64_t position = begin; position < end; ++position) {
    Generator gen(derive_seed(plan.seed, static_cast<uint64_t>(position)));
    SampleGeneratorScope scope(gen);
    examples.push_back(plan.dataset->get(plan.indices[position]));
  }
  Batch out = plan.collate(std::move(examples));
  return plan.pin_device ? pin_memory(out, *plan.pin_device) : out;
}

int64_t count_batches(int64_t examples, int64_t batch_size, bool drop_last) {
  return drop_last ? examples / batch_size : (examples + batch_size - 1) / batch_size;
}

uint64_t seed_from_default_generator() {
  Generator& gen = default_generator();
  return derive_seed(gen.seed(), gen.reserve(1));
}

}  // namespace

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : DataLoader(dataset, nullptr, std::move(options)) {}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, std::shared_ptr<Sampler> sampler,
                       DataLoaderOptions options)
    : dataset_(std::move(dataset)),
      sampler_(std::move(sampler)),
      options_(std::move(options)),
      seed_(options_.seed() ? *options_.seed() : seed_from_default_generator()) {
  BRISK_CHECK(dataset_ != nullptr, "DataLoader: the dataset is null");
  BRISK_CHECK(options_.batch_size() >= 1, "DataLoader: batch_size must be positive, got {}", options_.batch_size());
  BRISK_CHECK(options_.num_workers() >= 0, "DataLoader: num_workers must be non-negative, got {}",
              options_.num_workers());
  BRISK_CHECK(options_.prefetch_factor() >= 1, "DataLoader: prefetch_factor must be positive, got {}",
              options_.prefetch_factor());
  BRISK_CHECK(static_cast<bool>(options_.collate()), "DataLoader: the collate function is empty");
  BRISK_CHECK(!(sampler_ && options_.shuffle()),
              "DataLoader: shuffle=true cannot be combined with a sampler, which decides the order itself");
  if (options_.pin_memory()) {
    check_pin_memory_available("DataLoader");
    pin_device_ = options_.pin_memory_device() ? *options_.pin_memory_device() : default_pin_memory_device();
    BRISK_CHECK(pin_device_->is_cuda(), "DataLoader: pin_memory_device must be a CUDA device, got {}", *pin_device_);
  }
  if (!sampler_) {
    if (options_.shuffle()) {
      sampler_ = std::make_shared<RandomSampler>(dataset_->size(), seed_);
    } else {
      sampler_ = std::make_shared<SequentialSampler>(dataset_->size());
    }
  }
}

int64_t DataLoader::size() const {
  return count_batches(sampler_->size(), options_.batch_size(), options_.drop_last());
}

DataLoader::Iterator DataLoader::begin() {
  int64_t epoch = this->epoch();
  sampler_->start_epoch(epoch);
  epoch_ = epoch + 1;
  auto plan = std::make_shared<EpochPlan>(EpochPlan{dataset_, sampler_->indices(), options_.batch_size(),
                                                    derive_seed(seed_, static_cast<uint64_t>(epoch)),
                                                    options_.collate(), pin_device_});
  int64_t batches =
      count_batches(static_cast<int64_t>(plan->indices.size()), options_.batch_size(), options_.drop_last());
  auto producer = std::make_shared<BatchProducer>(
      batches, [plan](int64_t batch) { return load_batch(*plan, batch); }, options_.num_workers(),
      std::max<int64_t>(1, options_.num_workers() * options_.prefetch_factor()));
  return Iterator(std::move(producer));
}

DataLoader::Iterator::Iterator(std::shared_ptr<BatchProducer> producer) : producer_(std::move(producer)) {
  batch_ = producer_->next();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  batch_.reset();
  index_ = producer_->next_index();
  batch_ = producer_->next();
  return *this;
}

}  // namespace brisk::data
