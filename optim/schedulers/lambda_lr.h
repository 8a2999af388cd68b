#pragma once
// LambdaLR: each lr is its base lr times a function of the epoch (or step), as
// torch.optim.lr_scheduler.LambdaLR:
//
//   lr(t) = base_lr * lr_lambda(t)
//
//   // a linear warm-up over 100 steps, then constant (transformers' get_constant_schedule_with_warmup)
//   optim::LambdaLR scheduler(opt, [](int64_t step) { return std::min(1.0, step / 100.0); });
//
// Not chainable: each step computes the lrs from the function alone. As in PyTorch, the state
// dict does not hold the function: a resumed run passes the same one again.
#include <functional>

#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

class LambdaLR : public LRScheduler {
 public:
  // One function for every parameter group.
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  std::vector<double> get_lr() override;
  // {"lr_lambdas": [null, ...]}, one per group, as PyTorch's for functions that are not objects
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  std::function<double(int64_t)> lr_lambda_;
};

}  // namespace brisk::optim
