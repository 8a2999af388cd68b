#pragma once
// OneCycleLR: the 1cycle policy, as torch.optim.lr_scheduler.OneCycleLR, stepped once per
// batch. The lr rises from max_lr / div_factor to max_lr over the first pct_start of
// total_steps, then falls to initial_lr / final_div_factor; momentum (SGD's momentum or
// Adam's beta1) moves the opposite way between max_momentum and base_momentum. With
// three_phase, the rise is mirrored back to the initial lr first and a third phase
// falls to the minimum.
//
//   optim::OneCycleLR scheduler(opt, optim::OneCycleLROptions(0.1, epochs * batches_per_epoch));
//
// Not chainable: each step computes the lrs from the schedule alone.
#include <string>
#include <vector>

#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

class OneCycleLROptions {
 public:
  // One max_lr for every parameter group, or one per group.
  OneCycleLROptions(double max_lr, int64_t total_steps) : max_lr_{max_lr}, total_steps_(total_steps) {}
  OneCycleLROptions(std::vector<double> max_lr, int64_t total_steps)
      : max_lr_(std::move(max_lr)), total_steps_(total_steps) {}

  // clang-format off
  // The fraction of the steps spent raising the lr.
  OneCycleLROptions& pct_start(double v) { pct_start_ = v; return *this; }
  // "cos" or "linear".
  OneCycleLROptions& anneal_strategy(std::string v) { anneal_strategy_ = std::move(v); return *this; }
  OneCycleLROptions& cycle_momentum(bool v) { cycle_momentum_ = v; return *this; }
  // One value for every group, or one per group (as max_lr).
  OneCycleLROptions& base_momentum(std::vector<double> v) { base_momentum_ = std::move(v); return *this; }
  OneCycleLROptions& max_momentum(std::vector<double> v) { max_momentum_ = std::move(v); return *this; }
  OneCycleLROptions& base_momentum(double v) { base_momentum_ = {v}; return *this; }
  OneCycleLROptions& max_momentum(double v) { max_momentum_ = {v}; return *this; }
  // initial_lr = max_lr / div_factor; min_lr = initial_lr / final_div_factor.
  OneCycleLROptions& div_factor(double v) { div_factor_ = v; return *this; }
  OneCycleLROptions& final_div_factor(double v) { final_div_factor_ = v; return *this; }
  OneCycleLROptions& three_phase(bool v) { three_phase_ = v; return *this; }
  // clang-format on

  const std::vector<double>& max_lr() const { return max_lr_; }
  int64_t total_steps() const { return total_steps_; }
  double pct_start() const { return pct_start_; }
  const std::string& anneal_strategy() const { return anneal_strategy_; }
  bool cycle_momentum() const { return cycle_momentum_; }
  const std::vector<double>& base_momentum() const { return base_momentum_; }
  const std::vector<double>& max_momentum() const { return max_momentum_; }
  double div_factor() const { return div_factor_; }
  double final_div_factor() const { return final_div_factor_; }
  bool three_phase() const { return three_phase_; }

 private:
  std::vector<double> max_lr_;
  int64_t total_steps_;
  double pct_start_ = 0.3;
  std::string anneal_strategy_ = "cos";
  bool cycle_momentum_ = true;
  std::vector<double> base_momentum_{0.85};
  std::vector<double> max_momentum_{0.95};
  double div_factor_ = 25.0;
  double final_div_factor_ = 1e4;
  bool three_phase_ = false;
};

class OneCycleLR : public LRScheduler {
 public:
  // Sets each group's lr to its initial lr and, with cycle_momentum, its momentum to
  // max_momentum (throwing for an optimizer without one). Stepping past total_steps throws.
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  std::vector<double> get_lr() override;
  // {"total_steps", "pct_start", "three_phase", "_anneal_func_type", "cycle_momentum",
  //  "max_lrs", "min_lrs", "max_momentums", "base_momentums"}: the per-group values that
  // PyTorch keeps in the optimizer's groups are kept here, under plural names.
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  // The per-group values a phase starts or ends at.
  enum class Point { InitialLr, MaxLr, MinLr, MaxMomentum, BaseMomentum };
  struct Phase {
    double end_step;
    Point start_lr, end_lr, start_momentum, end_momentum;
  };

  void build_phases();
  double value(Point point, size_t group) const;
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  double pct_start_;
  bool three_phase_;
  bool cosine_;
  bool cycle_momentum_;
  std::vector<double> max_lrs_, min_lrs_, max_momentums_, base_momentums_;
  std::vector<Phase> phases_;
};

}  // namespace brisk::optim
