#include "optim/sgd.h"

#include <tuple>

#include "autograd/grad_mode.h"
#include "optim/json_fields.h"
#include "optim/multi_tensor_groups.h"
#include "profiler/record.h"
#include "tensor/native/ops.h"

namespace brisk::optim {

nlohmann::json SGDOptions::to_json() const {
  return {{"lr", lr_},
          {"momentum", momentum_},
          {"dampening", dampening_},
          {"weight_decay", weight_decay_},
          {"nesterov", nesterov_},
          {"maximize", maximize_}};
}

void SGDOptions::from_json(const nlohmann::json& json) {
  lr_ = detail::json_number(json, "lr", "SGD");
  momentum_ = detail::json_number(json, "momentum", "SGD");
  dampening_ = detail::json_number(json, "dampening", "SGD");
  weight_decay_ = detail::json_number(json, "weight_decay", "SGD");
  nesterov_ = detail::json_bool(json, "nesterov", "SGD");
  maximize_ = detail::json_bool(json, "maximize", "SGD");
}

SGD::SGD(const std::vector<Tensor>& params, const SGDOptions& defaults) : SGD({ParamGroup(params)}, defaults) {}

SGD::SGD(const std::vector<ParamGroup>& groups, const SGDOptions& defaults) : Optimizer("SGD", defaults.clone()) {
  add_param_groups(groups);
}

void SGD::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const SGDOptions*>(&options);
  BRISK_CHECK(o != nullptr, "SGD: a parameter group has options of another optimizer ({}); use SGDOptions",
              options.to_json().dump());
  BRISK_CHECK(o->lr() >= 0.0, "SGD: invalid learning rate: {} (must be >= 0)", o->lr());
  BRISK_CHECK(o->momentum() >= 0.0, "SGD: invalid momentum value: {} (must be >= 0)", o->momentum());
  BRISK_CHECK(o->weight_decay() >= 0.0, "SGD: invalid weight_decay value: {} (must be >= 0)", o->weight_decay());
  BRISK_CHECK(!o->nesterov() || (o->momentum() > 0.0 && o->dampening() == 0.0),
              "SGD: Nesterov momentum requires a momentum and zero dampening (momentum {}, dampening {})",
              o->momentum(), o->dampening());
}

void SGD::step() {
  profiler::RecordScope scope(profiler::Category::Optimizer, "Optimizer.step#SGD.step");
  NoGradGuard no_grad;
  for (ParamGroup& group : param_groups()) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    // The parameters with a gradient; with momentum their buffers, new ones at a first step.
    std::vector<Tensor> params, grads, buffers;
    std::vector<bool> first_step;
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      grads.push_back(p.grad());
      if (o.momentum() == 0.0) continue;
      ParamState& state = this->state(p);
      auto it = state.find("momentum_buffer");
      first_step.push_back(it == state.end());
      buffers.push_back(first_step.back() ? (state["momentum_buffer"] = native::empty_like(p)) : it->second);
    }
    auto key = [&](size_t i) {
      return std::make_tuple(params[i].device(), params[i].dtype(), o.momentum() != 0.0 && first_step[i]);
    };
    for (const std::vector<size_t>& same : group_by(params.size(), key)) {
      SgdStepParams options{
          o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov(), o.maximize(), std::get<2>(key(same[0]))};
      native::multi_tensor_sgd_step_(pick(params, same), pick(grads, same), pick(buffers, same), options);
    }
  }
}

}  // namespace brisk::optim
