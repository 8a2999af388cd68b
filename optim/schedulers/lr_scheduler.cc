#include "optim/schedulers/lr_scheduler.h"

#include "optim/json_fields.h"

namespace brisk::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, std::string name) : optimizer_(optimizer), name_(std::move(name)) {
  for (ParamGroup& group : optimizer_.param_groups()) {
    if (!group.initial_lr) group.initial_lr = group.options().get_lr();
    base_lrs_.push_back(*group.initial_lr);
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  is_initial_ = true;
  step();
  is_initial_ = false;
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const ParamGroup& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::step() {
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  BRISK_CHECK(groups.size() == base_lrs_.size(),
              "{}: the optimizer has {} parameter groups, but the scheduler was made for {}", name_, groups.size(),
              base_lrs_.size());
  ++step_count_;
  ++last_epoch_;
  std::vector<double> lrs = get_lr();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = group_lrs();
}

nlohmann::json LRScheduler::state_dict() const {
  nlohmann::json state = {
      {"base_lrs", base_lrs_}, {"last_epoch", last_epoch_}, {"_step_count", step_count_}, {"_last_lr", last_lr_}};
  settings_to_json(state);
  return state;
}

void LRScheduler::load_state_dict(const nlohmann::json& state) {
  std::vector<double> base_lrs = detail::json_numbers(state, "base_lrs", name_);
  std::vector<double> last_lr = detail::json_numbers(state, "_last_lr", name_);
  int64_t last_epoch = detail::json_int(state, "last_epoch", name_);
  int64_t step_count = detail::json_int(state, "_step_count", name_);
  size_t groups = optimizer_.param_groups().size();
  BRISK_CHECK(base_lrs.size() == groups && last_lr.size() == groups,
              "{}: the state dict is for {} parameter groups, the optimizer has {}", name_, base_lrs.size(), groups);
  settings_from_json(state);
  base_lrs_ = std::move(base_lrs);
  last_lr_ = std::move(last_lr);
  last_epoch_ = last_epoch;
  step_count_ = step_count;
}

}  // namespace brisk::optim
