#include "optim/adam.h"

#include <cmath>
#include <tuple>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "optim/json_fields.h"
#include "optim/multi_tensor_groups.h"
#include "profiler/record.h"
#include "tensor/native/ops.h"

namespace brisk::optim {

nlohmann::json AdamOptions::to_json() const {
  return {{"lr", lr_},
          {"betas", {std::get<0>(betas_), std::get<1>(betas_)}},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"amsgrad", amsgrad_},
          {"maximize", maximize_},
          {"decoupled_weight_decay", decoupled_weight_decay_}};
}

void AdamOptions::from_json(const nlohmann::json& json) {
  lr_ = detail::json_number(json, "lr", "Adam");
  std::vector<double> betas = detail::json_numbers(json, "betas", "Adam");
  BRISK_CHECK(betas.size() == 2, "Adam: \"betas\" in the state dict should hold two numbers, got {}",
              json["betas"].dump());
  betas_ = {betas[0], betas[1]};
  eps_ = detail::json_number(json, "eps", "Adam");
  weight_decay_ = detail::json_number(json, "weight_decay", "Adam");
  amsgrad_ = detail::json_bool(json, "amsgrad", "Adam");
  maximize_ = detail::json_bool(json, "maximize", "Adam");
  decoupled_weight_decay_ = detail::json_bool(json, "decoupled_weight_decay", "Adam");
}

// ---- Adam ----

Adam::Adam(const char* name, const AdamOptions& defaults) : Optimizer(name, defaults.clone()) {}

Adam::Adam(const std::vector<Tensor>& params, const AdamOptions& defaults) : Adam({ParamGroup(params)}, defaults) {}

Adam::Adam(const std::vector<ParamGroup>& groups, const AdamOptions& defaults) : Adam("Adam", defaults) {
  add_param_groups(groups);
}

void Adam::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const AdamOptions*>(&options);
  BRISK_CHECK(o != nullptr, "{}: a parameter group has options of another optimizer ({}); use AdamOptions", name(),
              options.to_json().dump());
  auto [beta1, beta2] = o->betas();
  BRISK_CHECK(o->lr() >= 0.0, "{}: invalid learning rate: {} (must be >= 0)", name(), o->lr());
  BRISK_CHECK(o->eps() >= 0.0, "{}: invalid epsilon value: {} (must be >= 0)", name(), o->eps());
  BRISK_CHECK(beta1 >= 0.0 && beta1 < 1.0, "{}: invalid beta parameter at index 0: {} (must be in [0, 1))", name(),
              beta1);
  BRISK_CHECK(beta2 >= 0.0 && beta2 < 1.0, "{}: invalid beta parameter at index 1: {} (must be in [0, 1))", name(),
              beta2);
  BRISK_CHECK(o->weight_decay() >= 0.0, "{}: invalid weight_decay value: {} (must be >= 0)", name(), o->weight_decay());
}

void Adam::step() {
  profiler::RecordScope scope(profiler::Category::Optimizer, [&] { return "Optimizer.step#" + name() + ".step"; });
  NoGradGuard no_grad;
  for (ParamGroup& group : param_groups()) {
    const auto& o = static_cast<const AdamOptions&>(group.options());
    auto [beta1, beta2] = o.betas();
    // The parameters with a gradient, their state and their step counts after this step.
    std::vector<Tensor> params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs;
    std::vector<double> steps;
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      ParamState& state = this->state(p);
      if (state.empty()) {
        state["step"] = zeros(Shape{}, kFloat32);
        state["exp_avg"] = zeros_like(p);
        state["exp_avg_sq"] = zeros_like(p);
      }
      if (o.amsgrad() && state.count("max_exp_avg_sq") == 0) state["max_exp_avg_sq"] = zeros_like(p);
      Tensor& step_count = state.at("step");
      step_count.add_(1);
      steps.push_back(step_count.item<float>());
      params.push_back(p);
      grads.push_back(p.grad());
      exp_avgs.push_back(state.at("exp_avg"));
      exp_avg_sqs.push_back(state.at("exp_avg_sq"));
      if (o.amsgrad()) max_exp_avg_sqs.push_back(state.at("max_exp_avg_sq"));
    }
    auto key = [&](size_t i) { return std::make_tuple(params[i].device(), params[i].dtype(), steps[i]); };
    for (const std::vector<size_t>& same : group_by(params.size(), key)) {
      // The scalar factors in float64, exactly as PyTorch computes them from the step count.
      const double step = steps[same[0]];
      AdamStepParams options;
      options.lr = o.lr();
      options.beta1 = beta1;
      options.beta2 = beta2;
      options.eps = o.eps();
      options.weight_decay = o.weight_decay();
      options.decoupled_weight_decay = o.decoupled_weight_decay();
      options.amsgrad = o.amsgrad();
      options.maximize = o.maximize();
      options.step_size = o.lr() / (1.0 - std::pow(beta1, step));
      options.bias_correction2_sqrt = std::pow(1.0 - std::pow(beta2, step), 0.5);
      native::multi_tensor_adam_step_(pick(params, same), pick(grads, same), pick(exp_avgs, same),
                                      pick(exp_avg_sqs, same), pick(max_exp_avg_sqs, same), options);
    }
  }
}

// ---- AdamW ----

AdamW::AdamW(const std::vector<Tensor>& params, const AdamOptions& defaults) : AdamW({ParamGroup(params)}, defaults) {}

AdamW::AdamW(const std::vector<ParamGroup>& groups, const AdamOptions& defaults) : Adam("AdamW", defaults) {
  add_param_groups(groups);
}

void AdamW::check_options(const OptimizerOptions& options) const {
  Adam::check_options(options);
  BRISK_CHECK(static_cast<const AdamOptions&>(options).decoupled_weight_decay(),
              "AdamW: options without decoupled_weight_decay ({}); use AdamWOptions, or Adam for L2 weight decay",
              options.to_json().dump());
}

}  // namespace brisk::optim
