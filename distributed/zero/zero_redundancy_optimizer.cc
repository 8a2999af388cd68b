#include "distributed/zero/zero_redundancy_optimizer.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "autograd/accumulate_grad.h"
#include "autograd/grad_mode.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/distributed.h"
#include "distributed/host_value_collectives.h"
#include "distributed/zero/zero_state_wire.h"
#include "profiler/record.h"

namespace brisk::dist {

std::vector<std::vector<size_t>> partition_parameters(const std::vector<int64_t>& numels, int world_size) {
  BRISK_CHECK(world_size > 0, "partition_parameters: world size {} (must be positive)", world_size);
  std::vector<size_t> order(numels.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return numels[a] > numels[b]; });
  std::vector<std::vector<size_t>> shards(world_size);
  std::vector<int64_t> totals(world_size, 0);
  for (size_t index : order) {
    // min_element returns the first minimum: ties go to the lowest rank.
    int rank = static_cast<int>(std::min_element(totals.begin(), totals.end()) - totals.begin());
    shards[rank].push_back(index);
    totals[rank] += numels[index];
  }
  for (auto& shard : shards) std::sort(shard.begin(), shard.end());
  return shards;
}

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(std::vector<Tensor> params, const OptimizerFactory& factory,
                                                 std::shared_ptr<ProcessGroup> group)
    : params_(std::move(params)), group_(group ? std::move(group) : default_group()) {
  const int me = rank();
  BRISK_CHECK(!params_.empty(), "ZeroRedundancyOptimizer on rank {}: got an empty parameter list", me);
  for (size_t i = 0; i < params_.size(); ++i) {
    BRISK_CHECK(params_[i].defined(), "ZeroRedundancyOptimizer on rank {}: parameter {} is an undefined tensor", me, i);
    // step() broadcasts the parameters themselves: they must be where the group's collectives run.
    BRISK_CHECK(params_[i].device() == group_->device(),
                "ZeroRedundancyOptimizer on rank {}: parameter {} is on {} but the process group ({}) takes tensors "
                "on {}; move the parameters there, or create the group for {} (ProcessGroupOptions::device)",
                me, i, params_[i].device(), group_->backend_name(), group_->device(), params_[i].device());
  }
  check_same_parameters_on_every_rank();

  std::vector<int64_t> numels;
  for (const Tensor& p : params_) numels.push_back(p.numel());
  partition_ = partition_parameters(numels, group_->size());
  owner_.assign(params_.size(), -1);
  for (int r = 0; r < group_->size(); ++r) {
    for (size_t index : partition_[r]) owner_[index] = r;
  }
  BRISK_CHECK(!partition_[me].empty(),
              "ZeroRedundancyOptimizer on rank {}: {} parameters over {} ranks leave this rank nothing to optimize "
              "(every rank needs at least one parameter)",
              me, params_.size(), group_->size());

  std::vector<Tensor> shard;
  for (size_t index : partition_[me]) shard.push_back(params_[index]);
  local_ = factory(shard);
  BRISK_CHECK(local_ != nullptr, "ZeroRedundancyOptimizer on rank {}: the optimizer factory returned null", me);
  // The state dict translation below maps local index i to partition_[me][i].
  const auto& groups = local_->param_groups();
  bool one_group = groups.size() == 1 && groups[0].params().size() == shard.size() &&
                   std::equal(shard.begin(), shard.end(), groups[0].params().begin(),
                              [](const Tensor& a, const Tensor& b) { return a.is_same(b); });
  BRISK_CHECK(one_group,
              "ZeroRedundancyOptimizer on rank {}: the factory's {} must have exactly one parameter group holding the "
              "{} parameters it was given, in order (it has {} groups)",
              me, local_->name(), shard.size(), groups.size());
}

void ZeroRedundancyOptimizer::check_same_parameters_on_every_rank() {
  // (count, total elements, a hash of the sizes in order): equal words give equal partitions.
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  int64_t total = 0;
  for (const Tensor& p : params_) {
    hash = (hash ^ static_cast<uint64_t>(p.numel())) * 1099511628211ULL;
    total += p.numel();
  }
  const std::vector<int64_t> words{static_cast<int64_t>(params_.size()), total, static_cast<int64_t>(hash)};
  const std::vector<int64_t> all = all_gather_values(*group_, words);
  const std::vector<int64_t> first(all.begin(), all.begin() + 3);
  for (int r = 1; r < group_->size(); ++r) {
    const std::vector<int64_t> other(all.begin() + 3 * r, all.begin() + 3 * r + 3);
    BRISK_CHECK(other == first,
                "ZeroRedundancyOptimizer: rank {} has {} parameters with {} elements but rank 0 has {} with {}{}; "
                "every rank must pass the same parameters in the same order",
                r, other[0], other[1], first[0], first[1],
                other[0] == first[0] && other[1] == first[1] ? " (their sizes differ)" : "");
  }
}

void ZeroRedundancyOptimizer::step() {
  profiler::RecordScope scope(profiler::Category::Optimizer, "Optimizer.step#ZeroRedundancyOptimizer.step");
  Join::notify_join_context(*this);
  update_and_broadcast();
}

void ZeroRedundancyOptimizer::update_and_broadcast() {
  local_->step();
  broadcast_parameters();
}

namespace detail {

class ZeroJoinHook final : public JoinHook {
 public:
  explicit ZeroJoinHook(ZeroRedundancyOptimizer& zero) : zero_(zero) {}
  void main_hook() override { zero_.update_and_broadcast(); }

 private:
  ZeroRedundancyOptimizer& zero_;
};

}  // namespace detail

std::unique_ptr<JoinHook> ZeroRedundancyOptimizer::join_hook(const JoinOptions&) {
  return std::make_unique<detail::ZeroJoinHook>(*this);
}

// The flat buffers of step's broadcasts: DDP's default bucket size, so that the copy of an
// owner's shard they hold after backward stays small beside the parameters (broadcast_coalesced's
// default of 256 MB would add up to a whole shard to the step's peak memory).
constexpr int64_t kBroadcastBufferBytes = 25LL << 20;

void ZeroRedundancyOptimizer::broadcast_parameters() {
  NoGradGuard no_grad;
  for (int r = 0; r < group_->size(); ++r) {
    std::vector<Tensor> shard;
    for (size_t index : partition_[r]) shard.push_back(params_[index]);
    broadcast_coalesced(*group_, shard, r, kBroadcastBufferBytes);
  }
}

void ZeroRedundancyOptimizer::zero_grad(bool set_to_none) { autograd::zero_gradients(params_, set_to_none); }

// ---- State dicts ----

void ZeroRedundancyOptimizer::consolidate_state_dict(int to) {
  const int me = rank();
  BRISK_CHECK(to >= 0 && to < group_->size(),
              "ZeroRedundancyOptimizer on rank {}: consolidate_state_dict({}) but the group has ranks 0..{}", me, to,
              group_->size() - 1);
  std::vector<ShardStateEntry> entries;
  for (size_t i = 0; i < partition_[me].size(); ++i) {
    const size_t index = partition_[me][i];
    if (const optim::ParamState* state = local_->find_state(params_[index])) {
      for (const auto& [name, value] : *state) entries.push_back({static_cast<int64_t>(index), name, value});
    }
  }
  std::vector<Tensor> gathered = gather_bytes(*group_, encode_shard_state(entries), to);
  consolidated_to_ = to;
  consolidated_ = {};
  if (me != to) return;

  // The plain optimizer's layout: this rank's group options, over every parameter.
  consolidated_.param_groups = local_->state_dict().param_groups;
  std::vector<int64_t> all_indices(params_.size());
  std::iota(all_indices.begin(), all_indices.end(), int64_t{0});
  consolidated_.param_groups[0]["params"] = all_indices;
  for (int r = 0; r < group_->size(); ++r) {
    for (ShardStateEntry& entry : decode_shard_state(gathered[r], params_, r)) {
      consolidated_.tensors[fmt::format("state.{}.{}", entry.param, entry.name)] = std::move(entry.value);
    }
  }
}

optim::OptimizerState ZeroRedundancyOptimizer::state_dict() const {
  BRISK_CHECK(consolidated_to_.has_value(),
              "ZeroRedundancyOptimizer on rank {}: state_dict() before consolidate_state_dict(); call "
              "consolidate_state_dict({}) on every rank first",
              rank(), rank());
  BRISK_CHECK(*consolidated_to_ == rank(),
              "ZeroRedundancyOptimizer on rank {}: state_dict() on a rank that did not receive the state (the last "
              "consolidate_state_dict gathered it onto rank {}); call it on that rank, or consolidate_state_dict({}) "
              "on every rank first",
              rank(), *consolidated_to_, rank());
  return consolidated_;
}

void ZeroRedundancyOptimizer::load_state_dict(const optim::OptimizerState& state) {
  const int me = rank();
  const nlohmann::json& groups = state.param_groups;
  BRISK_CHECK(groups.is_array() && groups.size() == 1,
              "ZeroRedundancyOptimizer on rank {}: the state dict has {} parameter groups; it must have one, over all "
              "{} parameters",
              me, groups.is_array() ? groups.size() : 0, params_.size());
  const nlohmann::json& indices = groups[0].contains("params") ? groups[0]["params"] : nlohmann::json();
  BRISK_CHECK(indices.is_array() && indices.size() == params_.size(),
              "ZeroRedundancyOptimizer on rank {}: the state dict's parameter group has {} parameters, the optimizer "
              "{}",
              me, indices.is_array() ? indices.size() : 0, params_.size());
  // The state dict's index of each parameter -> this rank's local index, for owned ones.
  std::map<int64_t, int64_t> local_of;
  std::set<int64_t> known;
  std::vector<int64_t> local_indices;
  for (size_t i = 0; i < params_.size(); ++i) {
    BRISK_CHECK(indices[i].is_number_integer(),
                "ZeroRedundancyOptimizer on rank {}: parameter index {} of the state dict is {}, not an integer", me, i,
                indices[i].dump());
    known.insert(indices[i].get<int64_t>());
  }
  for (size_t local = 0; local < partition_[me].size(); ++local) {
    local_of[indices[partition_[me][local]].get<int64_t>()] = static_cast<int64_t>(local);
    local_indices.push_back(static_cast<int64_t>(local));
  }

  optim::OptimizerState shard;
  shard.param_groups = groups;
  shard.param_groups[0]["params"] = local_indices;
  for (const auto& [key, value] : state.tensors) {
    auto [index, name] = optim::parse_state_key(key, fmt::format("ZeroRedundancyOptimizer on rank {}", me));
    BRISK_CHECK(known.count(index), "ZeroRedundancyOptimizer on rank {}: the state dict has \"{}\" but no parameter {}",
                me, key, index);
    auto it = local_of.find(index);
    if (it != local_of.end()) shard.tensors[fmt::format("state.{}.{}", it->second, name)] = value;
  }
  try {
    local_->load_state_dict(shard);
  } catch (const Error& e) {
    BRISK_FAIL("ZeroRedundancyOptimizer on rank {}: loading this rank's shard: {}", me, e.what());
  }
}

}  // namespace brisk::dist
