#include "optim/optimizer.h"

#include <cstdlib>
#include <utility>

#include "autograd/accumulate_grad.h"
#include "autograd/grad_mode.h"
#include "optim/json_fields.h"

namespace brisk::optim {

// ---- OptimizerOptions ----

double OptimizerOptions::get_momentum() const {
  BRISK_FAIL("get_momentum: these optimizer options have neither a momentum nor betas ({})", to_json().dump());
}

void OptimizerOptions::set_momentum(double momentum) {
  BRISK_FAIL("set_momentum({}): these optimizer options have neither a momentum nor betas ({})", momentum,
             to_json().dump());
}

// ---- ParamGroup ----

ParamGroup::ParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}

ParamGroup::ParamGroup(std::vector<Tensor> params, const OptimizerOptions& options)
    : params_(std::move(params)), options_(options.clone()) {}

ParamGroup::ParamGroup(const ParamGroup& other)
    : initial_lr(other.initial_lr),
      params_(other.params_),
      options_(other.options_ ? other.options_->clone() : nullptr) {}

ParamGroup& ParamGroup::operator=(const ParamGroup& other) {
  if (this != &other) *this = ParamGroup(other);
  return *this;
}

OptimizerOptions& ParamGroup::options() { return const_cast<OptimizerOptions&>(std::as_const(*this).options()); }

const OptimizerOptions& ParamGroup::options() const {
  BRISK_CHECK(options_ != nullptr, "ParamGroup: this group of {} parameters has no options", params_.size());
  return *options_;
}

// ---- Optimizer: groups and gradients ----

Optimizer::Optimizer(std::string name, std::unique_ptr<OptimizerOptions> defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {}

void Optimizer::add_param_groups(const std::vector<ParamGroup>& groups) {
  size_t count = 0;
  for (const ParamGroup& group : groups) count += group.params().size();
  BRISK_CHECK(count > 0, "{}: optimizer got an empty parameter list", name_);
  check_options(*defaults_);
  for (const ParamGroup& group : groups) add_param_group(group);
}

void Optimizer::add_param_group(const ParamGroup& group) {
  ParamGroup added = group;
  if (!added.has_options()) added.set_options(defaults_->clone());
  check_options(added.options());
  check_params(added.params(), groups_.size());
  groups_.push_back(std::move(added));
}

void Optimizer::check_params(const std::vector<Tensor>& params, size_t group_index) const {
  // Where each parameter already optimized sits, to name both places of a duplicate.
  std::unordered_map<const TensorImpl*, std::pair<size_t, size_t>> seen;
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (size_t i = 0; i < groups_[g].params().size(); ++i) seen[groups_[g].params()[i].impl()] = {g, i};
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    BRISK_CHECK(p.defined(), "{}: parameter {} of group {} is an undefined tensor", name_, i, group_index);
    BRISK_CHECK(p.is_leaf(), "{}: can't optimize a non-leaf tensor (parameter {} of group {}: {})", name_, i,
                group_index, p.describe());
    auto [it, inserted] = seen.emplace(p.impl(), std::make_pair(group_index, i));
    BRISK_CHECK(inserted,
                "{}: parameter {} of group {} ({}) is already optimized as parameter {} of group {}; a parameter "
                "may appear in only one place",
                name_, i, group_index, p.describe(), it->second.second, it->second.first);
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  for (ParamGroup& group : groups_) autograd::zero_gradients(group.params(), set_to_none);
}

const ParamState* Optimizer::find_state(const Tensor& param) const {
  auto it = state_.find(param.impl());
  return it == state_.end() ? nullptr : &it->second;
}

// ---- Optimizer: state dicts ----

OptimizerState Optimizer::state_dict() const {
  OptimizerState out;
  int64_t index = 0;
  for (const ParamGroup& group : groups_) {
    nlohmann::json entry = group.options().to_json();
    if (group.initial_lr) entry["initial_lr"] = *group.initial_lr;
    nlohmann::json indices = nlohmann::json::array();
    for (const Tensor& p : group.params()) {
      if (const ParamState* state = find_state(p)) {
        for (const auto& [key, value] : *state) out.tensors[fmt::format("state.{}.{}", index, key)] = value;
      }
      indices.push_back(index++);
    }
    entry["params"] = std::move(indices);
    out.param_groups.push_back(std::move(entry));
  }
  return out;
}

std::pair<int64_t, std::string> parse_state_key(const std::string& key, const std::string& owner) {
  const std::string prefix = "state.";
  size_t dot = key.find('.', prefix.size());
  bool ok = key.compare(0, prefix.size(), prefix) == 0 && dot != std::string::npos && dot > prefix.size() &&
            dot + 1 < key.size();
  char* end = nullptr;
  int64_t index = ok ? std::strtoll(key.c_str() + prefix.size(), &end, 10) : -1;
  ok = ok && end == key.c_str() + dot && index >= 0;
  BRISK_CHECK(ok, "{}: unexpected tensor \"{}\" in the state dict (expected \"state.<param index>.<name>\")", owner,
              key);
  return {index, key.substr(dot + 1)};
}

namespace {

// A copy of a loaded state tensor for `param`: on its device and in its dtype, except for
// the step count, which stays a CPU tensor as PyTorch keeps it (Adam reads it on the host
// every step; on a GPU that would be a synchronization per parameter).
Tensor load_state_tensor(const Tensor& value, const Tensor& param, const std::string& name) {
  if (name == "step") return value.device().is_cpu() ? value.clone() : value.to(Device(), value.dtype());
  if (value.device() == param.device() && value.dtype() == param.dtype()) return value.clone();
  return value.to(param.device(), param.dtype());
}

}  // namespace

void Optimizer::load_state_dict(const OptimizerState& state) {
  const nlohmann::json& saved = state.param_groups;
  BRISK_CHECK(saved.is_array() && saved.size() == groups_.size(),
              "{}: loaded state dict has {} parameter groups, the optimizer has {}", name_,
              saved.is_array() ? saved.size() : 0, groups_.size());
  // Everything is checked and built first, so that a failed load leaves the optimizer as it was.
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::vector<std::optional<double>> initial_lrs;
  std::unordered_map<int64_t, Tensor> param_of_index;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const nlohmann::json& entry = saved[g];
    const std::vector<Tensor>& params = groups_[g].params();
    BRISK_CHECK(entry.is_object() && entry.contains("params") && entry["params"].is_array(),
                "{}: parameter group {} of the loaded state dict has no \"params\" list", name_, g);
    const nlohmann::json& indices = entry["params"];
    BRISK_CHECK(indices.size() == params.size(),
                "{}: loaded state dict contains a parameter group that doesn't match the size of optimizer's group "
                "(group {}: {} parameters saved, {} in the optimizer)",
                name_, g, indices.size(), params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      BRISK_CHECK(indices[i].is_number_integer(), "{}: parameter index {} of group {} should be an integer, got {}",
                  name_, i, g, indices[i].dump());
      param_of_index[indices[i].get<int64_t>()] = params[i];
    }
    options.push_back(groups_[g].options().clone());
    options.back()->from_json(entry);
    check_options(*options.back());
    std::optional<double> initial_lr;
    if (entry.contains("initial_lr")) initial_lr = detail::json_number(entry, "initial_lr", name_);
    initial_lrs.push_back(initial_lr);
  }

  NoGradGuard no_grad;
  std::unordered_map<const TensorImpl*, ParamState> loaded;
  for (const auto& [key, value] : state.tensors) {
    auto [index, name] = parse_state_key(key, name_);
    auto it = param_of_index.find(index);
    BRISK_CHECK(it != param_of_index.end(), "{}: the state dict has \"{}\" but no parameter {}", name_, key, index);
    const Tensor& param = it->second;
    BRISK_CHECK(value.defined(), "{}: \"{}\" in the state dict is an undefined tensor", name_, key);
    BRISK_CHECK(name == "step" || value.sizes() == param.sizes(),
                "{}: \"{}\" in the state dict has shape {} but parameter {} has shape {}", name_, key, value.sizes(),
                index, param.sizes());
    loaded[param.impl()][name] = load_state_tensor(value, param, name);
  }

  for (size_t g = 0; g < groups_.size(); ++g) {
    groups_[g].set_options(std::move(options[g]));
    groups_[g].initial_lr = initial_lrs[g];
  }
  state_ = std::move(loaded);
}

}  // namespace brisk::optim
