#include "optim/schedulers/one_cycle_lr.h"

#include <cmath>

#include "optim/json_fields.h"

namespace brisk::optim {
namespace {

// One value for every group, or exactly one per group.
std::vector<double> per_group(const std::vector<double>& values, size_t groups, const char* what) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  BRISK_CHECK(values.size() == groups, "OneCycleLR: expected {} values for {} (one per parameter group), got {}",
              groups, what, values.size());
  return values;
}

void check_settings(int64_t total_steps, double pct_start) {
  BRISK_CHECK(total_steps > 0, "OneCycleLR: expected a positive total_steps, got {}", total_steps);
  BRISK_CHECK(pct_start >= 0.0 && pct_start <= 1.0, "OneCycleLR: expected pct_start between 0 and 1, got {}",
              pct_start);
}

bool is_cosine(const std::string& strategy) {
  BRISK_CHECK(strategy == "cos" || strategy == "linear",
              "OneCycleLR: anneal_strategy must be \"cos\" or \"linear\", got \"{}\"", strategy);
  return strategy == "cos";
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options)
    : LRScheduler(optimizer, "OneCycleLR"),
      total_steps_(options.total_steps()),
      pct_start_(options.pct_start()),
      three_phase_(options.three_phase()),
      cosine_(is_cosine(options.anneal_strategy())),
      cycle_momentum_(options.cycle_momentum()) {
  check_settings(total_steps_, pct_start_);
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  max_lrs_ = per_group(options.max_lr(), groups.size(), "max_lr");
  for (size_t i = 0; i < groups.size(); ++i) {
    base_lrs_[i] = max_lrs_[i] / options.div_factor();
    groups[i].initial_lr = base_lrs_[i];
    min_lrs_.push_back(base_lrs_[i] / options.final_div_factor());
  }
  if (cycle_momentum_) {
    for (const ParamGroup& group : groups) {
      BRISK_CHECK(group.options().has_momentum(),
                  "OneCycleLR: cycle_momentum needs an optimizer with a momentum or betas, but {} has options {}",
                  optimizer_.name(), group.options().to_json().dump());
    }
    max_momentums_ = per_group(options.max_momentum(), groups.size(), "max_momentum");
    base_momentums_ = per_group(options.base_momentum(), groups.size(), "base_momentum");
    for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_momentum(max_momentums_[i]);
  }
  build_phases();
  initial_step();
}

void OneCycleLR::build_phases() {
  // End steps computed as PyTorch does, in floating point.
  const double total = static_cast<double>(total_steps_);
  if (three_phase_) {
    phases_ = {{pct_start_ * total - 1, Point::InitialLr, Point::MaxLr, Point::MaxMomentum, Point::BaseMomentum},
               {2 * pct_start_ * total - 2, Point::MaxLr, Point::InitialLr, Point::BaseMomentum, Point::MaxMomentum},
               {total - 1, Point::InitialLr, Point::MinLr, Point::MaxMomentum, Point::MaxMomentum}};
  } else {
    phases_ = {{pct_start_ * total - 1, Point::InitialLr, Point::MaxLr, Point::MaxMomentum, Point::BaseMomentum},
               {total - 1, Point::MaxLr, Point::MinLr, Point::BaseMomentum, Point::MaxMomentum}};
  }
}

double OneCycleLR::value(Point point, size_t group) const {
  switch (point) {
    case Point::InitialLr: return base_lrs_[group];
    case Point::MaxLr: return max_lrs_[group];
    case Point::MinLr: return min_lrs_[group];
    case Point::MaxMomentum: return max_momentums_[group];
    case Point::BaseMomentum: return base_momentums_[group];
  }
  return 0.0;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (cosine_) return end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step = last_epoch_;
  BRISK_CHECK(step <= total_steps_, "OneCycleLR: tried to step {} times; the specified number of total steps is {}",
              step, total_steps_);
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    double start_step = 0.0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step <= phase.end_step || i + 1 == phases_.size()) {
        double span = phase.end_step - start_step;
        BRISK_CHECK(span != 0.0, "OneCycleLR: phase {} of the schedule spans no steps (total_steps {}, pct_start {})",
                    i, total_steps_, pct_start_);
        double pct = (step - start_step) / span;
        lrs.push_back(anneal(value(phase.start_lr, g), value(phase.end_lr, g), pct));
        if (cycle_momentum_) {
          groups[g].options().set_momentum(anneal(value(phase.start_momentum, g), value(phase.end_momentum, g), pct));
        }
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

void OneCycleLR::settings_to_json(nlohmann::json& state) const {
  state["total_steps"] = total_steps_;
  state["pct_start"] = pct_start_;
  state["three_phase"] = three_phase_;
  state["_anneal_func_type"] = cosine_ ? "cos" : "linear";
  state["cycle_momentum"] = cycle_momentum_;
  state["max_lrs"] = max_lrs_;
  state["min_lrs"] = min_lrs_;
  state["max_momentums"] = max_momentums_;
  state["base_momentums"] = base_momentums_;
}

void OneCycleLR::settings_from_json(const nlohmann::json& state) {
  int64_t total_steps = detail::json_int(state, "total_steps", name_);
  double pct_start = detail::json_number(state, "pct_start", name_);
  check_settings(total_steps, pct_start);
  BRISK_CHECK(state.contains("_anneal_func_type") && state["_anneal_func_type"].is_string(),
              "OneCycleLR: the state dict has no \"_anneal_func_type\" string");
  bool cosine = is_cosine(state["_anneal_func_type"].get<std::string>());
  bool three_phase = detail::json_bool(state, "three_phase", name_);
  bool cycle_momentum = detail::json_bool(state, "cycle_momentum", name_);
  size_t groups = optimizer_.param_groups().size();
  std::vector<double> max_lrs = detail::json_numbers(state, "max_lrs", name_);
  std::vector<double> min_lrs = detail::json_numbers(state, "min_lrs", name_);
  std::vector<double> max_momentums = detail::json_numbers(state, "max_momentums", name_);
  std::vector<double> base_momentums = detail::json_numbers(state, "base_momentums", name_);
  size_t momentums = cycle_momentum ? groups : 0;
  BRISK_CHECK(max_lrs.size() == groups && min_lrs.size() == groups && max_momentums.size() == momentums &&
                  base_momentums.size() == momentums,
              "OneCycleLR: the state dict's per-group values do not match the optimizer's {} parameter groups", groups);
  total_steps_ = total_steps;
  pct_start_ = pct_start;
  cosine_ = cosine;
  three_phase_ = three_phase;
  cycle_momentum_ = cycle_momentum;
  max_lrs_ = std::move(max_lrs);
  min_lrs_ = std::move(min_lrs);
  max_momentums_ = std::move(max_momentums);
  base_momentums_ = std::move(base_momentums);
  build_phases();
}

}  // namespace brisk::optim
