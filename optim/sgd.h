#pragma once
// Stochastic gradient descent, as torch.optim.SGD (its single-tensor reference algorithm):
//
//   g = grad (negated when maximize) + weight_decay * p
//   when momentum != 0:
//     buf = g at a parameter's first step, afterwards momentum * buf + (1 - dampening) * g
//     g = nesterov ? g + momentum * buf : buf
//   p -= lr * g
//
// Each parameter's update is fused (tensor/functors/optimizer_step.h): the op-by-op sequence
// above in one pass over memory. A group's parameters that share device, dtype and whether
// their buffer is new are updated by one multi-tensor call (native::multi_tensor_sgd_step_):
// one kernel on the simulated device, one launch per chunk of tensors on CUDA, as PyTorch's
// fused optimizers.
//
//   optim::SGD opt(model->parameters(), optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(1e-4));
#include <vector>

#include "optim/optimizer.h"
#include "tensor/arg.h"

namespace brisk::optim {

class SGDOptions : public OptimizerOptions {
 public:
  explicit SGDOptions(double lr = 1e-3) : lr_(lr) {}

  BRISK_ARG(double, lr);
  BRISK_ARG(double, momentum) = 0.0;
  BRISK_ARG(double, dampening) = 0.0;
  BRISK_ARG(double, weight_decay) = 0.0;
  // Needs momentum > 0 and dampening 0.
  BRISK_ARG(bool, nesterov) = false;
  // Ascend instead of descend.
  BRISK_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  bool has_momentum() const override { return true; }
  double get_momentum() const override { return momentum_; }
  void set_momentum(double momentum) override { momentum_ = momentum; }
  // {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"}
  nlohmann::json to_json() const override;
  void from_json(const nlohmann::json& json) override;
};

class SGD : public Optimizer {
 public:
  explicit SGD(const std::vector<Tensor>& params, const SGDOptions& defaults = SGDOptions());
  explicit SGD(const std::vector<ParamGroup>& groups, const SGDOptions& defaults = SGDOptions());

  // Per-parameter state: "momentum_buffer", from the first step on when momentum != 0.
  void step() override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
};

}  // namespace brisk::optim
