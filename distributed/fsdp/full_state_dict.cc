#include "distributed/fsdp/full_state_dict.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/fsdp/fully_shard.h"
#include "distributed/shard/flat_shard_layout.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// Where a parameter lives: its unit and its index there.
struct ShardOf {
  const ShardedUnit* unit = nullptr;
  size_t index = 0;
};

// The model's sharded parameters by tensor (the units' own parameter tensors).
struct ShardedParams {
  std::vector<FSDPModule> units;  // keep the units' states alive
  std::unordered_map<const TensorImpl*, ShardOf> by_param;
  ProcessGroup* group = nullptr;
};

ShardedParams sharded_params(nn::Module& model, const char* caller) {
  ShardedParams out;
  out.units = fsdp_modules(model);
  BRISK_CHECK(!out.units.empty(), "{}: the model is no fully_shard unit and holds none", caller);
  out.group = &out.units.front().unit().group();
  for (const FSDPModule& module : out.units) {
    const ShardedUnit& unit = module.unit();
    BRISK_CHECK(&unit.group() == out.group, "{}: unit {} shards over another group than the root's", caller,
                unit.name());
    for (size_t i = 0; i < unit.params().size(); ++i) out.by_param[unit.params()[i].impl()] = {&unit, i};
  }
  return out;
}

// The whole of tensor `at`'s parameter, of which `shard` holds this rank's rows; on every rank.
Tensor gather_rows(const ShardOf& at, const Tensor& shard) {
  ProcessGroup& group = at.unit->group();
  const FlatShardLayout layout({at.unit->layout().shape(at.index)}, group.size());
  const TensorOptions options = TensorOptions(shard.dtype()).device(group.device());
  Tensor buffer = zeros({layout.shard_numel()}, options);
  layout.shard_views(buffer, group.rank())[0].copy_(shard);
  Tensor gathered = empty({layout.gathered_numel()}, options);
  std::vector<Tensor> chunks = layout.rank_chunks(gathered);
  group.all_gather(chunks, buffer)->wait();
  Tensor full = empty(layout.shape(0), options);
  layout.unpack(gathered, {full});
  return full;
}

// This rank's rows of `full`, the whole of `at`'s parameter.
Tensor rows_of(const ShardOf& at, const Tensor& full) {
  const ShardedUnit& unit = *at.unit;
  const RowRange rows = unit.layout().rows(at.index, unit.group().rank());
  if (full.dim() == 0) return full.reshape({1}).narrow(0, 0, rows.rows).clone();
  return full.narrow(0, rows.begin, rows.rows).clone();
}

// The optimizer's parameters in its state_dict's order ("state.<index>.<name>").
std::vector<Tensor> indexed_params(const optim::Optimizer& optimizer) {
  std::vector<Tensor> params;
  for (const optim::ParamGroup& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params()) params.push_back(p);
  }
  return params;
}

// The parameter behind state key `key` and where it is sharded.
ShardOf shard_of_state(const ShardedParams& sharded, const std::vector<Tensor>& params, const std::string& key,
                       const optim::Optimizer& optimizer) {
  const int64_t index = optim::parse_state_key(key, optimizer.name()).first;
  BRISK_CHECK(index >= 0 && index < static_cast<int64_t>(params.size()),
              "{} state \"{}\": the optimizer has {} parameters", optimizer.name(), key, params.size());
  auto it = sharded.by_param.find(params[index].impl());
  BRISK_CHECK(it != sharded.by_param.end(),
              "{} state \"{}\": its parameter is not a fully_shard unit's; build the optimizer over the model's "
              "parameters after fully_shard",
              optimizer.name(), key);
  return it->second;
}

}  // namespace

nn::StateDict full_state_dict(nn::Module& model, int to) {
  autograd::NoGradGuard no_grad;
  ShardedParams sharded = sharded_params(model, "full_state_dict");
  std::unordered_map<std::string, ShardOf> by_name;
  for (const auto& item : model.named_parameters()) {
    auto it = sharded.by_param.find(item.value().impl());
    if (it != sharded.by_param.end()) by_name[item.key()] = it->second;
  }
  nn::StateDict out;
  const bool keep = sharded.group->rank() == to;
  for (const auto& item : model.state_dict()) {
    auto it = by_name.find(item.key());
    Tensor value = it == by_name.end() ? item.value() : gather_rows(it->second, item.value());
    if (keep) out.insert(item.key(), value);
  }
  return out;
}

void load_full_state_dict(nn::Module& model, const nn::StateDict& state) {
  autograd::NoGradGuard no_grad;
  ShardedParams sharded = sharded_params(model, "load_full_state_dict");
  nn::StateDict rows;
  std::vector<std::string> problems;
  for (const auto& item : model.named_parameters()) {
    auto it = sharded.by_param.find(item.value().impl());
    if (it == sharded.by_param.end() || !state.contains(item.key())) continue;
    const Tensor& full = state[item.key()];
    const Shape& shape = it->second.unit->layout().shape(it->second.index);
    if (full.sizes() != shape) {
      problems.push_back(fmt::format("{} is {} in the state, {} in the unsharded model", item.key(), full.sizes(), shape));
      continue;
    }
    rows.insert(item.key(), rows_of(it->second, full));
  }
  BRISK_CHECK(problems.empty(), "load_full_state_dict on rank {}: {}", sharded.group->rank(),
              fmt::join(problems, "; "));
  for (const auto& item : state) {
    if (!rows.contains(item.key())) rows.insert(item.key(), item.value());
  }
  model.load_state_dict(rows);
}

optim::OptimizerState full_optimizer_state_dict(nn::Module& model, const optim::Optimizer& optimizer, int to) {
  autograd::NoGradGuard no_grad;
  ShardedParams sharded = sharded_params(model, "full_optimizer_state_dict");
  const std::vector<Tensor> params = indexed_params(optimizer);
  optim::OptimizerState local = optimizer.state_dict();
  const int rank = sharded.group->rank();
  optim::OptimizerState out;
  out.param_groups = local.param_groups;
  // The keys are the same on every rank (the same optimizer over the same units), in the same
  // (sorted) order: the gathers pair up.
  for (const auto& [key, value] : local.tensors) {
    const ShardOf at = shard_of_state(sharded, params, key, optimizer);
    const bool per_row = value.dim() > 0 && value.sizes() == at.unit->layout().shard_shape(at.index, rank);
    Tensor whole = per_row ? gather_rows(at, value) : value;
    if (rank == to) out.tensors[key] = whole;
  }
  if (rank != to) return {};
  return out;
}

void load_full_optimizer_state_dict(nn::Module& model, optim::Optimizer& optimizer, const optim::OptimizerState& state) {
  autograd::NoGradGuard no_grad;
  ShardedParams sharded = sharded_params(model, "load_full_optimizer_state_dict");
  const std::vector<Tensor> params = indexed_params(optimizer);
  optim::OptimizerState local;
  local.param_groups = state.param_groups;
  for (const auto& [key, value] : state.tensors) {
    const ShardOf at = shard_of_state(sharded, params, key, optimizer);
    const bool per_row = value.dim() > 0 && value.sizes() == at.unit->layout().shape(at.index);
    local.tensors[key] = per_row ? rows_of(at, value) : value;
  }
  optimizer.load_state_dict(local);
}

}  // namespace brisk::dist
