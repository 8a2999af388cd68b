#include "distributed/fsdp/fsdp_checkpoint.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/sharded/rank_errors.h"
#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "distributed/fsdp/fully_shard.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

using checkpoint::kOptimizerPrefix;

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// A parameter tensor that a unit shards: its full shape and this rank's rows.
struct Sharded {
  Tensor param;
  Shape global_shape;
  RowRange rows;
};

// How `model`'s units split their parameters, and their group.
struct Layout {
  ProcessGroup* group = nullptr;
  std::vector<Sharded> params;
  std::map<std::string, const Sharded*> by_name;  // as model.named_parameters() names them

  // The parameter tensor `t` (the optimizer's, not a state_dict's detached alias).
  const Sharded* find(const Tensor& t) const {
    for (const Sharded& s : params) {
      if (s.param.is_same(t)) return &s;
    }
    return nullptr;
  }
  const Sharded* find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
};

Layout layout_of(nn::Module& model, const char* caller) {
  Layout out;
  for (const FSDPModule& module : fsdp_modules(model)) {
    const ShardedUnit& unit = module.unit();
    out.group = &unit.group();
    const int rank = unit.group().rank();
    for (size_t i = 0; i < unit.params().size(); ++i) {
      const Tensor& p = unit.params()[i];
      BRISK_CHECK(!unit.is_unsharded() && p.sizes() == unit.layout().shard_shape(i, rank),
                  "{} on rank {}: unit {} holds its gathered parameters; save and load between steps, when every "
                  "unit holds its shards",
                  caller, rank, unit.name());
      out.params.push_back({p, unit.layout().shape(i), unit.layout().rows(i, rank)});
    }
  }
  BRISK_CHECK(out.group != nullptr, "{}: the model has no fully_shard unit", caller);
  // Pointers into `params`, now that it is complete.
  for (const auto& [name, p] : model.named_parameters()) {
    if (const Sharded* s = out.find(p)) out.by_name[name] = s;
  }
  return out;
}

// The optimizer's parameters in the order its state dict numbers them.
std::vector<Tensor> numbered_params(const optim::Optimizer& optimizer) {
  std::vector<Tensor> out;
  for (const optim::ParamGroup& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params()) out.push_back(p);
  }
  return out;
}

const Tensor& numbered(const std::vector<Tensor>& params, int64_t k, const std::string& key, const std::string& owner) {
  BRISK_CHECK(k >= 0 && static_cast<size_t>(k) < params.size(), "{}: state \"{}\" but the optimizer has {} parameters",
              owner, key, params.size());
  return params[static_cast<size_t>(k)];
}

}  // namespace

void save_fsdp_checkpoint(const std::string& directory, nn::Module& model, const optim::Optimizer& optimizer,
                          const checkpoint::Progress& progress, uint64_t data_seed, const optim::LRScheduler* scheduler,
                          const checkpoint::Metadata& metadata) {
  const Layout layout = layout_of(model, "save_fsdp_checkpoint");
  ProcessGroup& group = *layout.group;
  const std::string owner = fmt::format("save_fsdp_checkpoint '{}' on rank {}", directory, group.rank());
  std::string error;
  checkpoint::ShardedStateDict state;
  checkpoint::Checkpoint run;
  try {
    for (const auto& [name, tensor] : model.state_dict()) {
      const Sharded* s = layout.find(name);
      state.insert(name, s == nullptr ? checkpoint::replicated(tensor)
                                      : checkpoint::sharded(tensor.detach(), s->global_shape, s->rows));
    }
    const std::vector<Tensor> params = numbered_params(optimizer);
    const optim::OptimizerState optimizer_state = optimizer.state_dict();
    for (const auto& [key, value] : optimizer_state.tensors) {
      const Tensor& param = numbered(params, optim::parse_state_key(key, owner).first, key, owner);
      const Sharded* s = layout.find(param);
      const std::string name = kOptimizerPrefix + key;
      state.insert(name, s != nullptr && value.sizes() == param.sizes()
                             ? checkpoint::sharded(value, s->global_shape, s->rows)
                             : checkpoint::replicated(value));
    }
    run.optimizer_name = optimizer.name();
    run.optimizer.param_groups = optimizer_state.param_groups;
    if (scheduler != nullptr) run.scheduler = scheduler->state_dict();
    run.progress = progress;
    run.generator = default_generator().get_state();
    run.data_seed = data_seed;
    run.metadata = metadata;
    run.metadata = checkpoint::checkpoint_metadata(run, directory);
  } catch (const std::exception& e) {
    error = fmt::format("{}: {}", owner, e.what());
  }
  checkpoint::raise_if_any_rank_failed(group, error, fmt::format("save_fsdp_checkpoint '{}'", directory));
  checkpoint::save_sharded(directory, state, group, run.metadata);
}

checkpoint::Checkpoint load_fsdp_checkpoint(const std::string& directory, nn::Module& model,
                                            optim::Optimizer& optimizer, optim::LRScheduler* scheduler) {
  autograd::NoGradGuard no_grad;
  const Layout layout = layout_of(model, "load_fsdp_checkpoint");
  ProcessGroup& group = *layout.group;
  const std::string owner = fmt::format("load_fsdp_checkpoint '{}' on rank {}", directory, group.rank());
  std::string error;
  checkpoint::Checkpoint run;
  try {
    checkpoint::ShardedReader reader(directory);
    run = checkpoint::checkpoint_from({}, reader.index().metadata, /*checksums_verified=*/true, directory);
    BRISK_CHECK(run.optimizer_name == optimizer.name(),
                "sharded checkpoint '{}' holds the state of {}, but the run's optimizer is {}", directory,
                run.optimizer_name, optimizer.name());
    BRISK_CHECK((scheduler != nullptr) == !run.scheduler.is_null(),
                "sharded checkpoint '{}' was saved {} an LR scheduler, but is loaded {} one", directory,
                run.scheduler.is_null() ? "without" : "with", scheduler != nullptr ? "with" : "without");

    checkpoint::ShardedStateDict model_state;
    for (const auto& [name, tensor] : model.state_dict()) {
      const Sharded* s = layout.find(name);
      model_state.insert(
          name, s == nullptr ? checkpoint::replicated(tensor) : checkpoint::sharded(tensor, s->global_shape, s->rows));
    }
    for (const checkpoint::IndexEntry& entry : reader.index().entries) {
      BRISK_CHECK(starts_with(entry.name, kOptimizerPrefix) || model_state.contains(entry.name),
                  "sharded checkpoint '{}' has entry \"{}\", which the model lacks", directory, entry.name);
    }
    reader.load(model_state);

    const std::vector<Tensor> params = numbered_params(optimizer);
    optim::OptimizerState state;
    state.param_groups = run.optimizer.param_groups;
    for (const checkpoint::IndexEntry& entry : reader.index().entries) {
      if (!starts_with(entry.name, kOptimizerPrefix)) continue;
      const std::string key = entry.name.substr(std::string(kOptimizerPrefix).size());
      const Tensor& param = numbered(params, optim::parse_state_key(key, owner).first, key, owner);
      const Sharded* s = layout.find(param);
      if (entry.replicated || s == nullptr) {
        state.tensors[key] = reader.read(entry.name);
        continue;
      }
      BRISK_CHECK(entry.shape == s->global_shape,
                  "sharded checkpoint '{}': entry \"{}\" is {}, but the parameter it belongs to is {}", directory,
                  entry.name, entry.shape, s->global_shape);
      state.tensors[key] = reader.read(entry.name, s->rows);
    }
    optimizer.load_state_dict(state);
    if (scheduler != nullptr) scheduler->load_state_dict(run.scheduler);
  } catch (const std::exception& e) {
    error = fmt::format("{}: {}", owner, e.what());
  }
  checkpoint::raise_if_any_rank_failed(group, error, fmt::format("load_fsdp_checkpoint '{}'", directory));
  return run;
}

}  // namespace brisk::dist
