#include "distributed/zero2/zero2_optimizer.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "autograd/accumulate_grad.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/zero/zero_state_wire.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "profiler/record.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

// Optimizer state that is one value per parameter, not shaped like it (Adam's step count):
// the same on every rank. Optimizer::load_state_dict singles it out the same way.
bool is_replicated_state(const std::string& name) { return name == "step"; }

}  // namespace

Zero2Optimizer::Zero2Optimizer(Zero2DataParallelBase& model, const Zero2OptimizerFactory& factory)
    : shards_(model.shards()) {
  const int me = rank();
  const std::vector<Tensor>& shards = shards_.shards();
  local_ = factory(shards);
  BRISK_CHECK(local_ != nullptr, "Zero2Optimizer on rank {}: the optimizer factory returned null", me);
  std::vector<bool> seen(shards.size(), false);
  for (const optim::ParamGroup& group : local_->param_groups()) {
    for (const Tensor& p : group.params()) {
      size_t i = 0;
      while (i < shards.size() && !shards[i].is_same(p)) ++i;
      BRISK_CHECK(i < shards.size(),
                  "Zero2Optimizer on rank {}: the factory's {} holds a tensor ({}) that is not one of the shards it "
                  "was given; build it over the shards",
                  me, local_->name(), p.describe());
      BRISK_CHECK(!seen[i], "Zero2Optimizer on rank {}: the factory's {} holds the shard of '{}' twice", me,
                  local_->name(), shards_.name(i));
      seen[i] = true;
      local_order_.push_back(i);
    }
  }
  for (size_t i = 0; i < shards.size(); ++i) {
    BRISK_CHECK(seen[i],
                "Zero2Optimizer on rank {}: the factory's {} leaves out the shard of '{}'; it must hold every shard "
                "it was given (freeze a parameter with requires_grad_(false) before wrapping instead)",
                me, local_->name(), shards_.name(i));
  }
}

void Zero2Optimizer::step() {
  profiler::RecordScope scope(profiler::Category::Optimizer, "Optimizer.step#Zero2Optimizer.step");
  for (size_t i = 0; i < shards_.params().size(); ++i) {
    BRISK_CHECK(shards_.shard(i).storage() == shards_.params()[i].storage(),
                "Zero2Optimizer on rank {}: parameter '{}' no longer holds the memory its shard steps (the model was "
                "moved or its parameters replaced after Zero2DataParallel wrapped it); move the model before wrapping",
                rank(), shards_.name(i));
  }
  local_->step();
  shards_.all_gather_parameters();
}

void Zero2Optimizer::zero_grad(bool set_to_none) {
  autograd::zero_gradients(shards_.shards(), set_to_none);
  autograd::zero_gradients(shards_.params(), set_to_none);
}

Tensor Zero2Optimizer::clip_grad_norm_(double max_norm, double norm_type, bool error_if_nonfinite) {
  BRISK_CHECK(norm_type > 0.0 || std::isinf(norm_type),
              "Zero2Optimizer::clip_grad_norm_: norm_type must be positive or inf, got {} (max_norm {})", norm_type,
              max_norm);
  NoGradGuard no_grad;
  const bool infinity = std::isinf(norm_type);
  ProcessGroup& group = *shards_.group();
  const TensorOptions options = TensorOptions(shards_.params().front().dtype()).device(group.device());
  std::vector<Tensor> norms;
  std::vector<Tensor> grads;
  for (const Tensor& shard : shards_.shards()) {
    const Tensor& g = shard.grad();
    if (!g.defined()) continue;
    grads.push_back(g);
    if (g.numel() > 0) norms.push_back(g.norm(norm_type).to(group.device(), options.dtype()));
  }
  // This rank's sum of |g|^p (or its largest |g|), reduced over the ranks.
  Tensor local = zeros({1}, options);
  if (!norms.empty()) {
    Tensor stacked = stack(norms);
    local = (infinity ? stacked.amax() : stacked.pow(norm_type).sum()).reshape({1});
  }
  group.all_reduce(local, infinity ? ReduceOp::MAX : ReduceOp::SUM)->wait();
  Tensor total = (infinity ? local : local.pow(1.0 / norm_type)).reshape({});
  if (error_if_nonfinite) {
    const double value = total.item<double>();
    BRISK_CHECK(std::isfinite(value),
                "Zero2Optimizer::clip_grad_norm_ on rank {}: the total norm of order {} of the gradients is {}, so "
                "they cannot be clipped; pass error_if_nonfinite = false to clip anyway",
                rank(), norm_type, value);
  }
  Tensor clip_coef = (max_norm / (total + 1e-6)).clamp(std::nullopt, 1.0);
  for (Tensor& g : grads) g.mul_(clip_coef.to(g.device(), g.dtype()));
  return total;
}

Tensor Zero2Optimizer::all_reduce_found_inf(const std::vector<Tensor>& found_inf) const {
  NoGradGuard no_grad;
  ProcessGroup& group = *shards_.group();
  Tensor found = zeros({1}, TensorOptions(kFloat32).device(group.device()));
  for (const Tensor& flag : found_inf) found = found + flag.to(group.device(), kFloat32);
  group.all_reduce(found, ReduceOp::MAX)->wait();
  return found;
}

// ---- State dicts ----

void Zero2Optimizer::consolidate_state_dict(int to) {
  const int me = rank();
  ProcessGroup& group = *shards_.group();
  BRISK_CHECK(to >= 0 && to < group.size(),
              "Zero2Optimizer on rank {}: consolidate_state_dict({}) but the group has ranks 0..{}", me, to,
              group.size() - 1);
  std::vector<Tensor> params_in_local_order;
  std::vector<ShardStateEntry> entries;
  for (size_t k = 0; k < local_order_.size(); ++k) {
    const size_t index = local_order_[k];
    params_in_local_order.push_back(shards_.params()[index]);
    if (const optim::ParamState* state = local_->find_state(shards_.shard(index))) {
      for (const auto& [name, value] : *state) entries.push_back({static_cast<int64_t>(k), name, value});
    }
  }
  std::vector<Tensor> gathered = gather_bytes(group, encode_shard_state(entries), to);
  consolidated_to_ = to;
  consolidated_ = {};
  if (me != to) return;

  // (local index, name) -> each rank's value.
  std::map<std::pair<int64_t, std::string>, std::vector<Tensor>> values;
  for (int r = 0; r < group.size(); ++r) {
    for (ShardStateEntry& entry : decode_shard_state(gathered[r], params_in_local_order, r)) {
      std::vector<Tensor>& by_rank = values[{entry.param, entry.name}];
      by_rank.resize(group.size());
      by_rank[r] = std::move(entry.value);
    }
  }
  consolidated_.param_groups = local_->state_dict().param_groups;
  for (auto& [key, by_rank] : values) {
    const auto& [k, name] = key;
    const size_t index = local_order_[k];
    const Tensor& param = shards_.params()[index];
    const ParameterShards::Place& at = shards_.place(index);
    const FlatShardLayout& layout = shards_.buckets()[at.bucket].layout;
    std::vector<Tensor> rows;
    for (int r = 0; r < group.size(); ++r) {
      BRISK_CHECK(by_rank[r].defined(),
                  "Zero2Optimizer::consolidate_state_dict on rank {}: rank {} holds no \"{}\" for parameter '{}' but "
                  "rank {} does",
                  me, r, name, shards_.name(index), r == 0 ? 1 : 0);
      if (!is_replicated_state(name)) {
        BRISK_CHECK(by_rank[r].sizes() == layout.shard_shape(at.slot, r),
                    "Zero2Optimizer::consolidate_state_dict on rank {}: rank {}'s \"{}\" of parameter '{}' is {}, not "
                    "the shape of its shard; only \"step\" may differ from a parameter's shape",
                    me, r, name, shards_.name(index), by_rank[r].describe());
        rows.push_back(by_rank[r]);
      }
    }
    consolidated_.tensors[fmt::format("state.{}.{}", k, name)] =
        is_replicated_state(name) ? by_rank[0] : native::reshape(native::cat(rows, 0), param.sizes());
  }
}

optim::OptimizerState Zero2Optimizer::state_dict() const {
  BRISK_CHECK(consolidated_to_.has_value(),
              "Zero2Optimizer on rank {}: state_dict() before consolidate_state_dict(); call "
              "consolidate_state_dict({}) on every rank first",
              rank(), rank());
  BRISK_CHECK(*consolidated_to_ == rank(),
              "Zero2Optimizer on rank {}: state_dict() on a rank that did not receive the state (the last "
              "consolidate_state_dict gathered it onto rank {}); call it on that rank, or consolidate_state_dict({}) "
              "on every rank first",
              rank(), *consolidated_to_, rank());
  return consolidated_;
}

void Zero2Optimizer::load_state_dict(const optim::OptimizerState& state) {
  const int me = rank();
  const std::string owner = fmt::format("Zero2Optimizer on rank {}", me);
  optim::OptimizerState mine;
  mine.param_groups = state.param_groups;
  for (const auto& [key, value] : state.tensors) {
    auto [k, name] = optim::parse_state_key(key, owner);
    BRISK_CHECK(k >= 0 && static_cast<size_t>(k) < local_order_.size(),
                "{}: the state dict has \"{}\" but the optimizer has {} parameters", owner, key, local_order_.size());
    const size_t index = local_order_[static_cast<size_t>(k)];
    if (is_replicated_state(name)) {
      mine.tensors[key] = value;
      continue;
    }
    const Tensor& param = shards_.params()[index];
    BRISK_CHECK(value.sizes() == param.sizes(), "{}: \"{}\" is {} but parameter '{}' is {}", owner, key,
                value.describe(), shards_.name(index), param.describe());
    const RowRange rows = shards_.rows(index);
    mine.tensors[key] = native::narrow(value.dim() == 0 ? native::view(value, {1}) : value, 0, rows.begin, rows.rows);
  }
  try {
    local_->load_state_dict(mine);
  } catch (const Error& e) {
    BRISK_FAIL("{}: loading this rank's shard: {}", owner, e.what());
  }
}

}  // namespace brisk::dist
