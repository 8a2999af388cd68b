#include "optim/schedulers/cosine_annealing_lr.h"

#include <cmath>

#include "optim/json_fields.h"

namespace brisk::optim {
namespace {

void check_t_max(int64_t T_max) { BRISK_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got {}", T_max); }

}  // namespace

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, "CosineAnnealingLR"), T_max_(T_max), eta_min_(eta_min) {
  check_t_max(T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (is_initial_) return lrs;
  const double t = static_cast<double>(last_epoch_);
  const double T = static_cast<double>(T_max_);
  // The branches and the order of operations are PyTorch's, for bit-identical lrs.
  if (step_count_ == 1 && last_epoch_ > 0) {
    // The first step after resuming at a later epoch: the closed form.
    for (size_t i = 0; i < lrs.size(); ++i) {
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(t * M_PI / T)) / 2;
    }
  } else if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0) {
    // At the bottom of the cosine the recursive ratio below is 0/0; step up from eta_min instead.
    for (size_t i = 0; i < lrs.size(); ++i) {
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(M_PI / T)) / 2;
    }
  } else {
    for (double& lr : lrs) {
      lr = (1 + std::cos(M_PI * t / T)) / (1 + std::cos(M_PI * (t - 1) / T)) * (lr - eta_min_) + eta_min_;
    }
  }
  return lrs;
}

void CosineAnnealingLR::settings_to_json(nlohmann::json& state) const {
  state["T_max"] = T_max_;
  state["eta_min"] = eta_min_;
}

void CosineAnnealingLR::settings_from_json(const nlohmann::json& state) {
  int64_t T_max = detail::json_int(state, "T_max", name_);
  check_t_max(T_max);
  eta_min_ = detail::json_number(state, "eta_min", name_);
  T_max_ = T_max;
}

}  // namespace brisk::optim
