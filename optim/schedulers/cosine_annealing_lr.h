#pragma once
// CosineAnnealingLR: anneals each lr from its base value to eta_min over T_max epochs along
// half a cosine, as torch.optim.lr_scheduler.CosineAnnealingLR:
//
//   lr(t) = eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2
//
// step() uses PyTorch's recursive form of this (each lr from the previous one), so the
// values are PyTorch's bit for bit; past T_max the lr rises again along the cosine.
#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 protected:
  std::vector<double> get_lr() override;
  // {"T_max", "eta_min"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace brisk::optim
