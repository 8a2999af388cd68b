#pragma once
// make_data_loader: libtorch's way of making a DataLoader (torch::data::make_data_loader),
// over a datasets::MapDataset (data/map_dataset.h) or any shared data::Dataset:
//
//   auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions().batch_size(64));
//   auto in_order = data::make_data_loader<data::samplers::SequentialSampler>(std::move(dataset), 64);
//   for (data::Batch& batch : *loader) train_step(batch.data, batch.target);
//
// As libtorch's, the default sampler is a RandomSampler: the examples are shuffled every
// epoch (from the DataLoader's seed, data/data_loader.h); SequentialSampler keeps their order.
#include <memory>
#include <type_traits>
#include <utility>

#include "data/data_loader.h"
#include "data/map_dataset.h"
#include "data/sampler.h"

namespace brisk::data {

template <typename SamplerType = RandomSampler>
std::unique_ptr<DataLoader> make_data_loader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {}) {
  static_assert(std::is_same_v<SamplerType, RandomSampler> || std::is_same_v<SamplerType, SequentialSampler>,
                "make_data_loader: the sampler is RandomSampler or SequentialSampler; for any other, construct "
                "a DataLoader with a std::shared_ptr<Sampler>");
  return std::make_unique<DataLoader>(std::move(dataset), options.shuffle(std::is_same_v<SamplerType, RandomSampler>));
}

template <typename SamplerType = RandomSampler>
std::unique_ptr<DataLoader> make_data_loader(const datasets::MapDataset& dataset, DataLoaderOptions options = {}) {
  return make_data_loader<SamplerType>(dataset.dataset(), std::move(options));
}

}  // namespace brisk::data
