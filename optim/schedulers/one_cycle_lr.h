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
#include "tensor/arg.h"

namespace brisk::optim {

class OneCycleLROptions {
 public:
  // One max_lr for every parameter group, or one per group.
  OneCycleLROptions(double max_lr, int64_t total_steps) : max_lr_{max_lr}, total_steps_(total_steps) {}
  OneCycleLROptions(std::vector<double> max_lr, int64_t total_steps)
      : max_lr_(std::move(max_lr)), total_steps_(total_steps) {}

  BRISK_ARG(std::vector<double>, max_lr);
  BRISK_ARG(int64_t, total_steps);
  // The fraction of the steps spent raising the lr.
  BRISK_ARG(double, pct_start) = 0.3;
  // "cos" or "linear".
  BRISK_ARG(std::string, anneal_strategy) = "cos";
  BRISK_ARG(bool, cycle_momentum) = true;
  // One value for every group, or one per group (as max_lr).
  BRISK_ARG(std::vector<double>, base_momentum){0.85};
  BRISK_ARG(std::vector<double>, max_momentum){0.95};
  // initial_lr = max_lr / div_factor; min_lr = initial_lr / final_div_factor.
  BRISK_ARG(double, div_factor) = 25.0;
  BRISK_ARG(double, final_div_factor) = 1e4;
  BRISK_ARG(bool, three_phase) = false;

 public:
  OneCycleLROptions& base_momentum(double v) { return base_momentum(std::vector<double>{v}); }
  OneCycleLROptions& max_momentum(double v) { return max_momentum(std::vector<double>{v}); }
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
