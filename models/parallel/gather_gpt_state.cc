#include "models/parallel/gather_gpt_state.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "autograd/ops.h"
#include "distributed/pipeline/tensor_message.h"
#include "distributed/tensor_parallel/parallel_layer.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "tensor/error.h"

namespace brisk::models {

namespace tp = dist::tp;

namespace {

constexpr int kStateTag = 7;  // the pipeline's streams use their own tags; this one is a step's end

// The keys, joined by '\n', as a uint8 tensor that travels with the values.
Tensor encode_keys(const nn::StateDict& state) {
  std::string joined;
  for (const auto& item : state) joined += item.key() + "\n";
  Tensor bytes = empty({static_cast<int64_t>(joined.size())}, TensorOptions(kUInt8));
  std::copy(joined.begin(), joined.end(), bytes.data_ptr<uint8_t>());
  return bytes;
}

std::vector<std::string> decode_keys(const Tensor& bytes) {
  const uint8_t* data = bytes.data_ptr<uint8_t>();
  std::vector<std::string> keys(1);
  for (int64_t i = 0; i < bytes.numel(); ++i) {
    if (data[i] == '\n') {
      keys.emplace_back();
    } else {
      keys.back().push_back(static_cast<char>(data[i]));
    }
  }
  keys.pop_back();  // after the last '\n'
  return keys;
}

}  // namespace

bool is_gathering_rank(const ParallelGPTImpl& model) {
  return model.groups.dp->rank() == 0 && model.groups.tp->rank() == 0 && model.groups.pp->rank() == 0;
}

namespace {

// Rank 0 of `pp` gets every rank's `stage` merged (a key that two stages hold, the tied
// embedding, from the first); the others send theirs and get an empty dict.
nn::StateDict merge_over_pipeline(const nn::StateDict& stage, dist::ProcessGroup& pp) {
  if (pp.rank() != 0) {
    std::vector<Tensor> message{encode_keys(stage)};
    for (const auto& item : stage) message.push_back(item.value().contiguous());
    dist::pipeline::MessageShapes shapes;
    dist::pipeline::send_tensors(pp, message, /*dst=*/0, kStateTag, shapes).wait();
    return {};
  }
  nn::StateDict merged = stage;
  for (int source = 1; source < pp.size(); ++source) {
    dist::pipeline::MessageShapes shapes;
    const std::vector<Tensor> message = dist::pipeline::recv_tensors(pp, source, kStateTag, shapes);
    const std::vector<std::string> keys = decode_keys(message.at(0));
    for (size_t i = 0; i < keys.size(); ++i) {
      if (merged.find(keys[i]) == nullptr) merged.insert(keys[i], message.at(i + 1));
    }
  }
  return merged;
}

// How each split parameter of the model is split: its key -> the layer's ParallelParameter
// and group.
struct Split {
  tp::ParallelParameter parameter;
  dist::GroupPtr group;
};
std::map<std::string, Split> split_parameters(ParallelGPTImpl& model) {
  std::map<std::string, Split> splits;
  for (const auto& item : model.named_modules(/*include_self=*/false)) {
    const auto* layer = dynamic_cast<const tp::TensorParallelLayer*>(item.value().get());
    if (layer == nullptr) continue;
    for (const tp::ParallelParameter& p : layer->parallel_parameters()) {
      if (p.split_dim >= 0) splits[item.key() + "." + p.name] = {p, layer->group()};
    }
  }
  return splits;
}

// One parameter group's entry with its "params" renumbered 0 .. count-1.
nlohmann::json renumbered_groups(const nlohmann::json& groups, size_t count, const char* what) {
  BRISK_CHECK(groups.is_array() && groups.size() == 1,
              "{}: the optimizer state has {} parameter groups; a ParallelGPT's optimizer has one", what,
              groups.is_array() ? groups.size() : 0);
  nlohmann::json out = groups;
  nlohmann::json indices = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i) indices.push_back(i);
  out[0]["params"] = std::move(indices);
  return out;
}

size_t index_of(const std::vector<std::string>& keys, const std::string& key, const char* what) {
  const auto it = std::find(keys.begin(), keys.end(), key);
  BRISK_CHECK(it != keys.end(), "{}: '{}' is not among the unsplit GPT's {} parameters", what, key, keys.size());
  return static_cast<size_t>(it - keys.begin());
}

}  // namespace

nn::StateDict gather_full_state_dict(ParallelGPTImpl& model) {
  nn::StateDict stage = model.full_state_dict();  // collective over tp
  if (model.groups.dp->rank() != 0 || model.groups.tp->rank() != 0) return {};
  const nn::StateDict merged = merge_over_pipeline(stage, *model.groups.pp);
  if (model.groups.pp->rank() != 0) return {};
  // In the unsplit GPT's order: the embeddings, the blocks by index, ln_f.
  std::vector<std::string> prefixes{"wte.", "wpe."};
  for (int64_t i = 0; i < model.config.n_layer(); ++i) prefixes.push_back(fmt::format("blocks.{}.", i));
  prefixes.push_back("ln_f.");
  nn::StateDict ordered;
  for (const std::string& prefix : prefixes) {
    for (const auto& item : merged) {
      if (item.key().compare(0, prefix.size(), prefix) == 0) ordered.insert(item.key(), item.value());
    }
  }
  BRISK_CHECK(ordered.size() == merged.size(), "gather_full_state_dict: {} of the stages' {} keys are GPT keys",
              ordered.size(), merged.size());
  return ordered;
}

optim::OptimizerState gather_full_optimizer_state(ParallelGPTImpl& model, const optim::OptimizerState& local,
                                                  const std::vector<std::string>& full_keys) {
  if (model.groups.dp->rank() != 0) return {};
  const char* what = "gather_full_optimizer_state";
  const nn::StateDict parameters = model.named_parameters();
  const std::vector<std::string> keys = parameters.keys();
  const std::map<std::string, Split> splits = split_parameters(model);
  // "<parameter key>|<state name>" -> the state tensor, whole over tp (in local.tensors' order,
  // the same on every rank of the tp group).
  nn::StateDict stage;
  for (const auto& [name, tensor] : local.tensors) {
    const auto [index, state] = optim::parse_state_key(name, what);
    BRISK_CHECK(index < static_cast<int64_t>(keys.size()), "{}: state of parameter {} of {}", what, index, keys.size());
    const std::string& key = keys[index];
    Tensor whole = tensor;
    const auto split = splits.find(key);
    if (split != splits.end() && tensor.sizes() == parameters[key].sizes()) {  // a moment, not a step count
      const int64_t dim = split->second.parameter.split_dim;
      whole = tp::all_gather_along(tensor.contiguous(), dim, *split->second.group,
                                   split->second.parameter.global_shape[dim]);
    }
    stage.insert(key + "|" + state, whole);
  }
  if (model.groups.tp->rank() != 0) return {};
  const nn::StateDict merged = merge_over_pipeline(stage, *model.groups.pp);
  if (model.groups.pp->rank() != 0) return {};
  optim::OptimizerState full;
  full.param_groups = renumbered_groups(local.param_groups, full_keys.size(), what);
  for (const auto& item : merged) {
    const size_t bar = item.key().find('|');
    const size_t index = index_of(full_keys, item.key().substr(0, bar), what);
    full.tensors[fmt::format("state.{}.{}", index, item.key().substr(bar + 1))] = item.value();
  }
  return full;
}

optim::OptimizerState split_optimizer_state(ParallelGPTImpl& model, const optim::OptimizerState& full,
                                            const std::vector<std::string>& full_keys) {
  const char* what = "split_optimizer_state";
  const std::vector<std::string> keys = model.named_parameters().keys();
  const std::map<std::string, Split> splits = split_parameters(model);
  std::map<size_t, size_t> local_index;  // full index -> this rank's
  for (size_t j = 0; j < keys.size(); ++j) local_index[index_of(full_keys, keys[j], what)] = j;
  optim::OptimizerState out;
  out.param_groups = renumbered_groups(full.param_groups, keys.size(), what);
  for (const auto& [name, tensor] : full.tensors) {
    const auto [index, state] = optim::parse_state_key(name, what);
    const auto mine = local_index.find(static_cast<size_t>(index));
    if (mine == local_index.end()) continue;  // another stage's parameter
    const std::string& key = keys[mine->second];
    Tensor part = tensor;
    const auto split = splits.find(key);
    if (split != splits.end() && tensor.sizes() == split->second.parameter.global_shape) {
      part = tp::local_part(tensor, split->second.parameter.split_dim, *split->second.group);  // loads copy it
    }
    out.tensors[fmt::format("state.{}.{}", mine->second, state)] = part;
  }
  return out;
}

}  // namespace brisk::models
