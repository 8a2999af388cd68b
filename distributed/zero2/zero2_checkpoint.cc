#include "distributed/zero2/zero2_checkpoint.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "autograd/grad_mode.h"
#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/sharded/rank_errors.h"
#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

using checkpoint::kOptimizerPrefix;

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// The local optimizer's state tensors, under the names a plain optimizer's would have: split as
// their parameter when shaped like its shard, else the same on every rank.
void add_optimizer_state(const Zero2Optimizer& optimizer, checkpoint::ShardedStateDict& state) {
  const ParameterShards& shards = optimizer.shards();
  const std::string owner = fmt::format("Zero2Optimizer on rank {}", optimizer.rank());
  for (const auto& [key, value] : optimizer.local_optimizer().state_dict().tensors) {
    const size_t index = optimizer.local_order().at(static_cast<size_t>(optim::parse_state_key(key, owner).first));
    const std::string name = kOptimizerPrefix + key;
    if (value.sizes() == shards.shard(index).sizes()) {
      state.insert(name, checkpoint::sharded(value, shards.params()[index].sizes(), shards.rows(index)));
    } else {
      state.insert(name, checkpoint::replicated(value));
    }
  }
}

optim::OptimizerState read_optimizer_state(checkpoint::ShardedReader& reader, const Zero2Optimizer& optimizer,
                                           const nlohmann::json& param_groups) {
  const ParameterShards& shards = optimizer.shards();
  const std::string owner = fmt::format("Zero2Optimizer on rank {}", optimizer.rank());
  optim::OptimizerState mine;
  mine.param_groups = param_groups;
  for (const checkpoint::IndexEntry& entry : reader.index().entries) {
    if (!starts_with(entry.name, kOptimizerPrefix)) continue;
    const std::string key = entry.name.substr(std::string(kOptimizerPrefix).size());
    const int64_t k = optim::parse_state_key(key, owner).first;
    BRISK_CHECK(k >= 0 && static_cast<size_t>(k) < optimizer.local_order().size(),
                "sharded checkpoint '{}': entry \"{}\" is the state of parameter {}, but the optimizer has {}",
                reader.directory(), entry.name, k, optimizer.local_order().size());
    const size_t index = optimizer.local_order()[static_cast<size_t>(k)];
    if (entry.replicated) {
      mine.tensors[key] = reader.read(entry.name);
      continue;
    }
    const Tensor& param = shards.params()[index];
    BRISK_CHECK(entry.shape == param.sizes(),
                "sharded checkpoint '{}': entry \"{}\" is {}, but parameter '{}' it belongs to is {}",
                reader.directory(), entry.name, entry.shape, shards.name(index), param.sizes());
    mine.tensors[key] = reader.read(entry.name, shards.rows(index));
  }
  return mine;
}

}  // namespace

void save_zero2_checkpoint(const std::string& directory, const nn::Module& model, const Zero2Optimizer& optimizer,
                           const checkpoint::Progress& progress, uint64_t data_seed,
                           const optim::LRScheduler* scheduler, const checkpoint::Metadata& metadata) {
  const ParameterShards& shards = optimizer.shards();
  std::string error;
  checkpoint::ShardedStateDict state;
  checkpoint::Checkpoint run;
  try {
    std::map<std::string, size_t> trained;
    for (size_t i = 0; i < shards.params().size(); ++i) trained[shards.name(i)] = i;
    for (const auto& [name, tensor] : model.state_dict()) {
      auto it = trained.find(name);
      state.insert(name, it == trained.end() ? checkpoint::replicated(tensor)
                                             : checkpoint::sharded(shards.shard(it->second).detach(), tensor.sizes(),
                                                                   shards.rows(it->second)));
    }
    add_optimizer_state(optimizer, state);
    run.optimizer_name = optimizer.local_optimizer().name();
    run.optimizer.param_groups = optimizer.local_optimizer().state_dict().param_groups;
    if (scheduler != nullptr) run.scheduler = scheduler->state_dict();
    run.progress = progress;
    run.generator = default_generator().get_state();
    run.data_seed = data_seed;
    run.metadata = metadata;
    run.metadata = checkpoint::checkpoint_metadata(run, directory);
  } catch (const std::exception& e) {
    error = fmt::format("save_zero2_checkpoint '{}' on rank {}: {}", directory, optimizer.rank(), e.what());
  }
  checkpoint::raise_if_any_rank_failed(*shards.group(), error, fmt::format("save_zero2_checkpoint '{}'", directory));
  checkpoint::save_sharded(directory, state, *shards.group(), run.metadata);
}

checkpoint::Checkpoint load_zero2_checkpoint(const std::string& directory, nn::Module& model, Zero2Optimizer& optimizer,
                                             optim::LRScheduler* scheduler) {
  autograd::NoGradGuard no_grad;
  std::string error;
  checkpoint::Checkpoint run;
  try {
    checkpoint::ShardedReader reader(directory);
    run = checkpoint::checkpoint_from({}, reader.index().metadata, /*checksums_verified=*/true, directory);
    optim::Optimizer& local = optimizer.local_optimizer();
    BRISK_CHECK(run.optimizer_name == local.name(),
                "sharded checkpoint '{}' holds the state of {}, but the run's optimizer is {}", directory,
                run.optimizer_name, local.name());
    BRISK_CHECK((scheduler != nullptr) == !run.scheduler.is_null(),
                "sharded checkpoint '{}' was saved {} an LR scheduler, but is loaded {} one", directory,
                run.scheduler.is_null() ? "without" : "with", scheduler != nullptr ? "with" : "without");
    checkpoint::ShardedStateDict model_state = checkpoint::replicated(model.state_dict());
    for (const checkpoint::IndexEntry& entry : reader.index().entries) {
      BRISK_CHECK(starts_with(entry.name, kOptimizerPrefix) || model_state.contains(entry.name),
                  "sharded checkpoint '{}' has entry \"{}\", which the model lacks", directory, entry.name);
    }
    reader.load(model_state);
    optim::OptimizerState state = read_optimizer_state(reader, optimizer, run.optimizer.param_groups);
    local.load_state_dict(state);
    if (scheduler != nullptr) scheduler->load_state_dict(run.scheduler);
  } catch (const std::exception& e) {
    error = fmt::format("load_zero2_checkpoint '{}' on rank {}: {}", directory, optimizer.rank(), e.what());
  }
  checkpoint::raise_if_any_rank_failed(*optimizer.shards().group(), error,
                                       fmt::format("load_zero2_checkpoint '{}'", directory));
  return run;
}

}  // namespace brisk::dist
