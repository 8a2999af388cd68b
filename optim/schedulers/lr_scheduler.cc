#include "optim/schedulers/lr_scheduler.h"

#include <cmath>
#include <utility>

#include "optim/json_fields.h"
#include "tensor/error.h"

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

namespace {

void check_factors(double start_factor, double end_factor, int64_t total_iters) {
  BRISK_CHECK(start_factor > 0.0 && start_factor <= 1.0,
              "LinearLR: start_factor must be greater than 0 and at most 1, got {}", start_factor);
  BRISK_CHECK(end_factor >= 0.0 && end_factor <= 1.0, "LinearLR: end_factor must be between 0 and 1, got {}",
              end_factor);
  BRISK_CHECK(total_iters >= 0, "LinearLR: total_iters must not be negative, got {}", total_iters);
}

}  // namespace

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer, "LinearLR"),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  check_factors(start_factor, end_factor, total_iters);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (is_initial_ || last_epoch_ > total_iters_) return lrs;
  // The ratio of this epoch's factor to the last one's, in PyTorch's order of operations.
  double ratio = 1.0 + (end_factor_ - start_factor_) /
                           (total_iters_ * start_factor_ + (last_epoch_ - 1) * (end_factor_ - start_factor_));
  for (double& lr : lrs) lr *= ratio;
  return lrs;
}

void LinearLR::settings_to_json(nlohmann::json& state) const {
  state["start_factor"] = start_factor_;
  state["end_factor"] = end_factor_;
  state["total_iters"] = total_iters_;
}

void LinearLR::settings_from_json(const nlohmann::json& state) {
  double start_factor = detail::json_number(state, "start_factor", name_);
  double end_factor = detail::json_number(state, "end_factor", name_);
  int64_t total_iters = detail::json_int(state, "total_iters", name_);
  check_factors(start_factor, end_factor, total_iters);
  start_factor_ = start_factor;
  end_factor_ = end_factor;
  total_iters_ = total_iters;
}

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

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer, "LambdaLR"), lr_lambda_(std::move(lr_lambda)) {
  BRISK_CHECK(static_cast<bool>(lr_lambda_), "LambdaLR: lr_lambda is empty");
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (double base_lr : base_lrs_) lrs.push_back(base_lr * lr_lambda_(last_epoch_));
  return lrs;
}

void LambdaLR::settings_to_json(nlohmann::json& state) const {
  state["lr_lambdas"] = nlohmann::json::array();
  for (size_t i = 0; i < base_lrs_.size(); ++i) state["lr_lambdas"].push_back(nullptr);
}

void LambdaLR::settings_from_json(const nlohmann::json&) {}

}  // namespace brisk::optim
