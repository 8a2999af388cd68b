#include "optim/grad_scaler.h"

#include <cmath>
#include <tuple>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "optim/json_fields.h"
#include "optim/multi_tensor_groups.h"
#include "tensor/native/ops.h"

namespace brisk::optim {

GradScaler::GradScaler(GradScalerOptions options)
    : options_(options), scale_(static_cast<float>(options.init_scale())) {
  BRISK_CHECK(options.init_scale() > 0.0, "GradScaler: init_scale must be positive, got {}", options.init_scale());
  BRISK_CHECK(options.growth_factor() > 1.0, "GradScaler: growth_factor must be above 1, got {}",
              options.growth_factor());
  BRISK_CHECK(options.backoff_factor() > 0.0 && options.backoff_factor() < 1.0,
              "GradScaler: backoff_factor must be between 0 and 1, got {}", options.backoff_factor());
  BRISK_CHECK(options.growth_interval() > 0, "GradScaler: growth_interval must be positive, got {}",
              options.growth_interval());
}

Tensor GradScaler::scale(const Tensor& outputs) const {
  if (!options_.enabled()) return outputs;
  return outputs * static_cast<double>(scale_);
}

std::vector<Tensor> GradScaler::params_of(const Optimizer& optimizer) {
  std::vector<Tensor> params;
  for (const ParamGroup& group : optimizer.param_groups()) {
    params.insert(params.end(), group.params().begin(), group.params().end());
  }
  return params;
}

void GradScaler::unscale_params(const void* optimizer, const std::vector<Tensor>& params,
                                const FoundInfReduction& reduce) {
  if (!options_.enabled()) return;
  PerOptimizer& state = per_optimizer_[optimizer];
  BRISK_CHECK(state.stage != Stage::Stepped, "GradScaler: unscale_() is being called after step()");
  BRISK_CHECK(state.stage == Stage::Ready,
              "GradScaler: unscale_() has already been called on this optimizer since the last update()");
  // PyTorch's inv_scale: the reciprocal in float64, rounded to float32.
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(scale_));
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& param : params) {
    if (param.grad().defined()) grads.push_back(param.grad());
  }
  auto key = [&](size_t i) { return std::make_tuple(grads[i].device(), grads[i].dtype()); };
  for (const std::vector<size_t>& same : group_by(grads.size(), key)) {
    const Device device = grads[same[0]].device();
    auto found = state.found_inf.find(device.str());
    if (found == state.found_inf.end()) {
      found = state.found_inf.emplace(device.str(), zeros({1}, TensorOptions(kFloat32).device(device))).first;
    }
    native::multi_tensor_non_finite_check_and_unscale_(pick(grads, same), found->second, inv_scale);
  }
  if (reduce) {
    std::vector<Tensor> flags;
    for (const auto& [device, found_inf] : state.found_inf) flags.push_back(found_inf);
    Tensor agreed = reduce(flags);
    state.found_inf = {{agreed.device().str(), agreed}};
  }
  state.stage = Stage::Unscaled;
}

bool GradScaler::step_params(const void* optimizer, const std::vector<Tensor>& params, const FoundInfReduction& reduce,
                             const std::function<void()>& step) {
  if (!options_.enabled()) {
    step();
    return true;
  }
  BRISK_CHECK(per_optimizer_[optimizer].stage != Stage::Stepped,
              "GradScaler: step() has already been called on this optimizer since the last update()");
  if (per_optimizer_[optimizer].stage == Stage::Ready) unscale_params(optimizer, params, reduce);
  PerOptimizer& state = per_optimizer_[optimizer];
  // The one host synchronization of the iteration: one element per device.
  double found = 0.0;
  for (const auto& [device, found_inf] : state.found_inf) found += found_inf.item<float>();
  state.stage = Stage::Stepped;
  if (found != 0.0) return false;
  step();
  return true;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!options_.enabled()) return;
  if (new_scale) {
    scale_ = static_cast<float>(*new_scale);
  } else {
    bool found_inf = false;
    for (const auto& [optimizer, state] : per_optimizer_) {
      for (const auto& [device, found] : state.found_inf) found_inf |= found.item<float>() != 0.0f;
    }
    BRISK_CHECK(!per_optimizer_.empty(), "GradScaler: update() without an unscale_() or step() since the last one");
    // PyTorch's _amp_update_scale_: float32 scale, products in float64.
    if (found_inf) {
      scale_ = static_cast<float>(scale_ * options_.backoff_factor());
      growth_tracker_ = 0;
    } else if (growth_tracker_ + 1 == options_.growth_interval()) {
      const float grown = static_cast<float>(scale_ * options_.growth_factor());
      if (std::isfinite(grown)) scale_ = grown;
      growth_tracker_ = 0;
    } else {
      ++growth_tracker_;
    }
  }
  per_optimizer_.clear();
}

double GradScaler::get_scale() const { return options_.enabled() ? static_cast<double>(scale_) : 1.0; }

nlohmann::json GradScaler::state_dict() const {
  if (!options_.enabled()) return nlohmann::json::object();
  return {{"scale", static_cast<double>(scale_)},
          {"growth_factor", options_.growth_factor()},
          {"backoff_factor", options_.backoff_factor()},
          {"growth_interval", options_.growth_interval()},
          {"_growth_tracker", growth_tracker_}};
}

void GradScaler::load_state_dict(const nlohmann::json& state) {
  BRISK_CHECK(options_.enabled(), "GradScaler: load_state_dict on a disabled scaler");
  BRISK_CHECK(!state.empty(), "GradScaler: the state dict is empty (saved by a disabled scaler)");
  const std::string owner = "GradScaler";
  scale_ = static_cast<float>(detail::json_number(state, "scale", owner));
  options_.growth_factor(detail::json_number(state, "growth_factor", owner));
  options_.backoff_factor(detail::json_number(state, "backoff_factor", owner));
  options_.growth_interval(detail::json_int(state, "growth_interval", owner));
  growth_tracker_ = detail::json_int(state, "_growth_tracker", owner);
}

}  // namespace brisk::optim
