#pragma once
// StepLR: multiplies the lrs by gamma every step_size epochs, as
// torch.optim.lr_scheduler.StepLR (lr = base_lr * gamma^(epoch / step_size) when nothing
// else changes them).
#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  // {"step_size", "gamma"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  int64_t step_size_;
  double gamma_;
};

}  // namespace brisk::optim
