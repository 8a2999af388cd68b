#include "distributed/fsdp/fully_shard.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/distributed.h"
#include "tensor/error.h"

namespace brisk::dist {

struct FullyShardRoot;

// One unit and where it is in the current iteration. The module's forward hooks own it; the
// parameters' gradient hooks and the autograd graph's hold it weakly.
struct FullyShardState : std::enable_shared_from_this<FullyShardState> {
  FullyShardState(std::vector<std::string> names, std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group,
                  const FullyShardOptions& options_, std::weak_ptr<nn::Module> module_)
      : unit(std::move(names), std::move(params), std::move(group), options_.mp_policy(), options_.cpu_offload()),
        options(options_),
        module(std::move(module_)) {}

  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);
  void pre_backward();
  void on_grad_accumulated(size_t param);
  void reduce();
  // Makes this unit the root of every unit in its module's tree (PyTorch's lazy init: the
  // first unit to run its forward is the root).
  void init_as_root();
  void end_iteration();

  ShardedUnit unit;
  FullyShardOptions options;
  std::weak_ptr<nn::Module> module;
  std::shared_ptr<FullyShardRoot> root;
  bool is_root = false;

  // This iteration: a forward ran with grad mode on (a backward will reduce), the unit's
  // backward began (its parameters gathered again), its gradients were reduce-scattered.
  bool requires_gradient_sync = true;
  bool forward_with_grad = false;
  bool backward_started = false;
  bool reduced = false;
  std::vector<bool> grad_ready;
  size_t ready_count = 0;
};

// What the root does for its whole tree: finish every unit when backward ends.
struct FullyShardRoot : std::enable_shared_from_this<FullyShardRoot> {
  void queue_finish();
  void finish_backward();
  // The unit after `unit` in the recorded forward order (`step` 1), or before it (-1); null
  // at either end, or while the order is being recorded.
  std::shared_ptr<FullyShardState> neighbour(const FullyShardState* unit, int step) const;
  // Drops the prefetches no unit took, e.g. of units that did not run this iteration.
  void discard_prefetches();
  std::vector<std::shared_ptr<FullyShardState>> live_units() const;

  std::vector<std::weak_ptr<FullyShardState>> units;  // named_modules' order
  bool finish_queued = false;
  // The order the units' forwards ran in the first iteration, which prefetching follows: the
  // next unit's all_gather is issued before a unit's forward compute, the previous unit's
  // before its backward compute.
  std::vector<std::weak_ptr<FullyShardState>> forward_order;
  bool order_recorded = false;
  // The unit whose reduce_scatter was issued last this backward: the next unit's reduction
  // waits for it, so that at most two units' full gradients are held at once.
  std::weak_ptr<FullyShardState> reducing;
};

namespace {

// Which modules are units. Keyed by address, with the state held weakly: a module's hooks own
// its state, so a dead module's entry has expired.
std::mutex registry_mutex;
std::unordered_map<const nn::Module*, std::weak_ptr<FullyShardState>>& registry() {
  static auto* map = new std::unordered_map<const nn::Module*, std::weak_ptr<FullyShardState>>();
  return *map;
}

std::shared_ptr<FullyShardState> state_of(const nn::Module& module) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry().find(&module);
  return it == registry().end() ? nullptr : it->second.lock();
}

void register_state(const nn::Module& module, const std::shared_ptr<FullyShardState>& state) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto it = registry().begin(); it != registry().end();) {
    it = it->second.expired() ? registry().erase(it) : std::next(it);
  }
  registry()[&module] = state;
}

// The parameters of `module` (named from it) that no unit below it holds, each once.
void collect_params(nn::Module& module, const std::string& prefix, std::unordered_set<const TensorImpl*>& seen,
                    std::vector<std::string>& names, std::vector<Tensor>& params) {
  for (const auto& item : module.named_parameters(/*recurse=*/false)) {
    if (seen.insert(item.value().impl()).second) {
      names.push_back(prefix + item.key());
      params.push_back(item.value());
    }
  }
  for (const auto& child : module.named_children()) {
    if (state_of(*child.value())) continue;
    collect_params(*child.value(), prefix + child.key() + ".", seen, names, params);
  }
}

}  // namespace

void FullyShardState::pre_forward() {
  if (!root) init_as_root();
  if (is_root && !root->forward_order.empty()) {
    // A new iteration: the first one's order is complete.
    root->order_recorded = true;
    root->discard_prefetches();
  }
  if (is_root) {
    for (const auto& state : root->live_units()) state->unit.clear_collective_spans();
  }
  if (!root->order_recorded) root->forward_order.push_back(shared_from_this());
  if (autograd::GradMode::is_enabled()) forward_with_grad = true;
  unit.unshard();
  if (auto next = root->neighbour(this, 1)) next->unit.start_unshard();
}

void FullyShardState::post_forward(const std::vector<Tensor>& outputs) {
  // A forward inside the unit's backward is activation checkpointing's recomputation: the
  // backward still needs the gathered parameters.
  if (backward_started) return;
  const bool grad = autograd::GradMode::is_enabled();
  if (!grad || (options.reshard_after_forward() && !is_root)) unit.reshard();
  if (!grad) return;
  std::weak_ptr<FullyShardState> weak = shared_from_this();
  for (const Tensor& output : outputs) {
    if (!output.defined() || !output.requires_grad()) continue;
    // The unit's backward starts when the gradient of its output arrives.
    output.register_hook([weak](const Tensor&) {
      if (auto state = weak.lock()) state->pre_backward();
      return Tensor();
    });
  }
}

void FullyShardState::pre_backward() {
  if (backward_started) return;
  backward_started = true;
  root->queue_finish();
  unit.stash_grads();
  grad_ready.assign(unit.params().size(), false);
  ready_count = 0;
  unit.unshard();
  if (auto previous = root->neighbour(this, -1)) {
    if (!previous->backward_started) previous->unit.start_unshard();
  }
}

void FullyShardState::on_grad_accumulated(size_t param) {
  BRISK_CHECK(backward_started, "fully_shard: parameter {} of unit {} (rank {}) got a gradient outside the unit's "
              "backward: call the unit as a module (model(x), not model->forward(x)) so that its hooks run",
              unit.param_names()[param], unit.name(), unit.group().rank());
  if (reduced || grad_ready[param]) return;
  grad_ready[param] = true;
  if (++ready_count == unit.params().size()) reduce();
}

void FullyShardState::reduce() {
  if (requires_gradient_sync) {
    unit.start_reduce_grads();
    if (auto previous = root->reducing.lock()) previous->unit.wait_reduce();
    root->reducing = shared_from_this();
  } else {
    unit.accumulate_unsharded_grads();
  }
  unit.reshard();
  reduced = true;
}

void FullyShardState::init_as_root() {
  std::shared_ptr<nn::Module> tree = module.lock();
  BRISK_CHECK(tree != nullptr, "fully_shard: the module of unit {} no longer exists", unit.name());
  auto new_root = std::make_shared<FullyShardRoot>();
  for (const auto& item : tree->named_modules()) {
    std::shared_ptr<FullyShardState> state = state_of(*item.value());
    if (!state) continue;
    state->root = new_root;
    state->is_root = state.get() == this;
    state->unit.set_name(item.key().empty() ? tree->name() : item.key());
    new_root->units.push_back(state);
  }
}

void FullyShardState::end_iteration() {
  forward_with_grad = false;
  backward_started = false;
  reduced = false;
}

void FullyShardRoot::queue_finish() {
  if (finish_queued) return;
  finish_queued = true;
  std::weak_ptr<FullyShardRoot> weak = shared_from_this();
  autograd::Engine::queue_callback([weak] {
    if (auto root = weak.lock()) root->finish_backward();
  });
}

std::vector<std::shared_ptr<FullyShardState>> FullyShardRoot::live_units() const {
  std::vector<std::shared_ptr<FullyShardState>> states;
  for (const auto& weak : units) {
    if (auto state = weak.lock()) states.push_back(state);
  }
  return states;
}

std::shared_ptr<FullyShardState> FullyShardRoot::neighbour(const FullyShardState* unit, int step) const {
  if (!order_recorded) return nullptr;
  for (size_t i = 0; i < forward_order.size(); ++i) {
    if (forward_order[i].lock().get() != unit) continue;
    const size_t j = i + step;
    return j < forward_order.size() ? forward_order[j].lock() : nullptr;
  }
  return nullptr;
}

void FullyShardRoot::discard_prefetches() {
  for (const auto& state : live_units()) state->unit.discard_prefetch();
}

void FullyShardRoot::finish_backward() {
  finish_queued = false;
  reducing.reset();
  order_recorded = !forward_order.empty();
  std::vector<std::shared_ptr<FullyShardState>> states = live_units();
  // Units whose forward ran but whose gradients did not all arrive (unused parameters, an
  // output outside the loss) reduce now, with zeros for what is missing, so that every rank
  // issues the same collectives; children first, as their backwards usually end first.
  for (auto it = states.rbegin(); it != states.rend(); ++it) {
    FullyShardState& state = **it;
    if (!state.forward_with_grad || state.reduced) continue;
    if (!state.backward_started) state.unit.stash_grads();
    state.reduce();
  }
  for (const auto& state : states) {
    state->unit.finish_grads();
    state->unit.discard_prefetch();
    state->unit.reshard();
    state->end_iteration();
  }
}

const ShardedUnit& FSDPModule::unit() const { return state_->unit; }
void FSDPModule::unshard() { state_->unit.unshard(); }
void FSDPModule::reshard() { state_->unit.reshard(); }

void FSDPModule::set_requires_gradient_sync(bool requires_gradient_sync, bool recurse) {
  state_->requires_gradient_sync = requires_gradient_sync;
  if (!recurse) return;
  std::shared_ptr<nn::Module> module = state_->module.lock();
  if (!module) return;
  for (const auto& below : module->modules(/*include_self=*/false)) {
    if (auto state = state_of(*below)) state->requires_gradient_sync = requires_gradient_sync;
  }
}

FSDPModule fully_shard(nn::Module& module, const FullyShardOptions& options) {
  BRISK_CHECK(!state_of(module), "fully_shard: this {} is a unit already", module.name());
  std::shared_ptr<ProcessGroup> group = options.group() ? options.group() : default_group();
  BRISK_CHECK(group != nullptr,
              "fully_shard: no process group: pass FullyShardOptions().group(...) or call init_process_group first");

  // Parameters that units below hold (shared with this module's own) stay theirs.
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& below : module.modules(/*include_self=*/false)) {
    if (auto state = state_of(*below)) {
      for (const Tensor& p : state->unit.params()) seen.insert(p.impl());
    }
  }
  std::vector<std::string> names;
  std::vector<Tensor> params;
  collect_params(module, "", seen, names, params);
  nn::StateDict named;
  for (size_t i = 0; i < params.size(); ++i) named.insert(names[i], params[i]);
  check_on_group_device(*group, named, "parameter", "fully_shard");
  verify_same_shapes(*group, named, "parameter", "fully_shard");
  broadcast_coalesced(*group, params, /*root=*/0);

  auto state = std::make_shared<FullyShardState>(names, params, group, options, module.weak_from_this());
  state->unit.set_name(module.name());
  module.register_forward_pre_hook([state] { state->pre_forward(); });
  module.register_forward_hook([state](const std::vector<Tensor>& outputs) { state->post_forward(outputs); });
  std::weak_ptr<FullyShardState> weak = state;
  for (size_t i = 0; i < params.size(); ++i) {
    params[i].register_post_accumulate_grad_hook([weak, i](Tensor&) {
      if (auto s = weak.lock()) s->on_grad_accumulated(i);
    });
  }
  register_state(module, state);
  return FSDPModule(state);
}

std::vector<FSDPModule> fsdp_modules(nn::Module& root) {
  std::vector<FSDPModule> units;
  for (const auto& module : root.modules()) {
    if (auto state = state_of(*module)) units.emplace_back(state);
  }
  return units;
}

CommOverlap fsdp_comm_overlap(nn::Module& root) {
  using Clock = CollectiveSpan::Clock;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> spans;
  Clock::duration waited{};
  for (const FSDPModule& module : fsdp_modules(root)) {
    for (const CollectiveSpan& span : module.unit().collective_spans()) {
      spans.emplace_back(span.issued, std::max(span.issued, span.completed));
      waited += span.waited;
    }
  }
  CommOverlap overlap;
  if (spans.empty()) return overlap;
  std::sort(spans.begin(), spans.end());
  Clock::duration communication{};
  Clock::time_point begin = spans[0].first;
  Clock::time_point end = spans[0].second;
  for (const auto& [span_begin, span_end] : spans) {
    if (span_begin > end) {
      communication += end - begin;
      begin = span_begin;
    }
    end = std::max(end, span_end);
  }
  communication += end - begin;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  overlap.communication_ms = ms(communication);
  overlap.exposed_ms = std::min(ms(waited), overlap.communication_ms);
  overlap.hidden_ms = overlap.communication_ms - overlap.exposed_ms;
  return overlap;
}

}  // namespace brisk::dist
