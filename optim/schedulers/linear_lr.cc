#include "optim/schedulers/linear_lr.h"

#include "optim/json_fields.h"

namespace brisk::optim {
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

}  // namespace brisk::optim
