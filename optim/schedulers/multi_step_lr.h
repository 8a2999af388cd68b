#pragma once
// MultiStepLR: multiplies the lrs by gamma at each milestone epoch (by gamma^n at a
// milestone listed n times), as torch.optim.lr_scheduler.MultiStepLR.
#include <map>

#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  // {"milestones": [sorted, with repeats], "gamma"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  // milestone -> how many times it was given
  std::map<int64_t, int> milestones_;
  double gamma_;
};

}  // namespace brisk::optim
