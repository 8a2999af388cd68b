#include "optim/schedulers/multi_step_lr.h"

#include <cmath>

#include "optim/json_fields.h"

namespace brisk::optim {
namespace {

std::map<int64_t, int> count_milestones(const std::vector<int64_t>& milestones) {
  std::map<int64_t, int> counts;
  for (int64_t m : milestones) ++counts[m];
  return counts;
}

}  // namespace

MultiStepLR::MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma)
    : LRScheduler(optimizer, "MultiStepLR"), milestones_(count_milestones(milestones)), gamma_(gamma) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  auto it = milestones_.find(last_epoch_);
  if (it == milestones_.end()) return lrs;
  double factor = std::pow(gamma_, it->second);
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

void MultiStepLR::settings_to_json(nlohmann::json& state) const {
  nlohmann::json milestones = nlohmann::json::array();
  for (const auto& [milestone, count] : milestones_) {
    for (int i = 0; i < count; ++i) milestones.push_back(milestone);
  }
  state["milestones"] = std::move(milestones);
  state["gamma"] = gamma_;
}

void MultiStepLR::settings_from_json(const nlohmann::json& state) {
  BRISK_CHECK(state.contains("milestones") && state["milestones"].is_array(),
              "MultiStepLR: the state dict has no \"milestones\" list");
  std::vector<int64_t> milestones;
  for (const auto& m : state["milestones"]) {
    BRISK_CHECK(m.is_number_integer(), "MultiStepLR: milestones must be integers, got {}", m.dump());
    milestones.push_back(m.get<int64_t>());
  }
  gamma_ = detail::json_number(state, "gamma", name_);
  milestones_ = count_milestones(milestones);
}

}  // namespace brisk::optim
