#include "optim/schedulers/step_lr.h"

#include "optim/json_fields.h"

namespace brisk::optim {
namespace {

void check_step_size(int64_t step_size) {
  BRISK_CHECK(step_size > 0, "StepLR: step_size must be positive, got {}", step_size);
}

}  // namespace

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, "StepLR"), step_size_(step_size), gamma_(gamma) {
  check_step_size(step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

void StepLR::settings_to_json(nlohmann::json& state) const {
  state["step_size"] = step_size_;
  state["gamma"] = gamma_;
}

void StepLR::settings_from_json(const nlohmann::json& state) {
  int64_t step_size = detail::json_int(state, "step_size", name_);
  check_step_size(step_size);
  gamma_ = detail::json_number(state, "gamma", name_);
  step_size_ = step_size;
}

}  // namespace brisk::optim
