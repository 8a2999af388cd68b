#pragma once
// Adam and AdamW, as torch.optim.Adam/AdamW (their single-tensor reference algorithm). Per
// parameter, at step t:
//
//   g = grad (negated when maximize)
//   Adam:  g += weight_decay * p                    (L2 penalty through the gradient)
//   AdamW: p *= 1 - lr * weight_decay               (decoupled, before the moments)
//   m = lerp(m, g, 1 - beta1)          v = beta2 * v + (1 - beta2) * g * g
//   amsgrad: v_max = max(v_max, v), used instead of v below
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
//
// so the first step already moves by about lr (the bias corrections undo the zero start).
//
// Each parameter's update is fused (tensor/functors/optimizer_step.h): the op-by-op sequence
// above in one pass over memory. A group's parameters that share device, dtype and step count
// are updated by one multi-tensor call (native::multi_tensor_adam_step_): one kernel on the
// simulated device, one launch per chunk of tensors on CUDA, as PyTorch's fused optimizers.
//
//   optim::Adam opt(model->parameters(), optim::AdamOptions(1e-3).betas({0.9, 0.98}).amsgrad(true));
//   optim::AdamW opt(model->parameters(), optim::AdamWOptions(1e-3).weight_decay(0.05));
#include <tuple>
#include <utility>
#include <vector>

#include "optim/optimizer.h"
#include "tensor/arg.h"

namespace brisk::optim {

class AdamOptions : public OptimizerOptions {
 public:
  explicit AdamOptions(double lr = 1e-3) : lr_(lr) {}

  using Betas = std::tuple<double, double>;  // libtorch's type: betas(std::make_tuple(0.9, 0.98))
  BRISK_ARG(double, lr);
  BRISK_ARG(Betas, betas) = {0.9, 0.999};
  BRISK_ARG(double, eps) = 1e-8;
  BRISK_ARG(double, weight_decay) = 0.0;
  BRISK_ARG(bool, amsgrad) = false;
  BRISK_ARG(bool, maximize) = false;
  // AdamW's weight decay (PyTorch's Adam option of the same name).
  BRISK_ARG(bool, decoupled_weight_decay) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  // beta1
  bool has_momentum() const override { return true; }
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  // {"lr", "betas": [beta1, beta2], "eps", "weight_decay", "amsgrad", "maximize", "decoupled_weight_decay"}
  nlohmann::json to_json() const override;
  void from_json(const nlohmann::json& json) override;
};

// AdamW's defaults: PyTorch's weight_decay 1e-2, decoupled.
class AdamWOptions : public AdamOptions {
 public:
  explicit AdamWOptions(double lr = 1e-3) : AdamOptions(lr) {
    weight_decay(1e-2);
    decoupled_weight_decay(true);
  }
};

class Adam : public Optimizer {
 public:
  explicit Adam(const std::vector<Tensor>& params, const AdamOptions& defaults = AdamOptions());
  explicit Adam(const std::vector<ParamGroup>& groups, const AdamOptions& defaults = AdamOptions());

  // Per-parameter state, created at a parameter's first step: "step" (a float32 count on
  // the CPU, as PyTorch), "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with amsgrad.
  void step() override;

 protected:
  Adam(const char* name, const AdamOptions& defaults);
  void check_options(const OptimizerOptions& options) const override;
};

// Adam with decoupled weight decay: every group's options must have decoupled_weight_decay,
// as AdamWOptions do.
class AdamW : public Adam {
 public:
  explicit AdamW(const std::vector<Tensor>& params, const AdamOptions& defaults = AdamWOptions());
  explicit AdamW(const std::vector<ParamGroup>& groups, const AdamOptions& defaults = AdamWOptions());

 protected:
  void check_options(const OptimizerOptions& options) const override;
};

}  // namespace brisk::optim
