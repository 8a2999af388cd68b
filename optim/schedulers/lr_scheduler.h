#pragma once
// The learning rate scheduler base, as torch.optim.lr_scheduler.LRScheduler.
//
//   optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
//   optim::StepLR scheduler(opt, 30, 0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) {
//     train(opt);        // calls opt.step()
//     scheduler.step();  // after the optimizer's step
//   }
//
// Constructing a scheduler records each group's current lr as its "initial_lr" (unless an
// earlier scheduler already did) and takes those as the base lrs, then makes the initial
// step: epoch 0's lrs are written into the optimizer right away. Like PyTorch, step() uses
// each scheduler's recursive ("chainable") form, computing the next lr from the group's
// current one, so that results match PyTorch's to the last bit and schedulers compose.
// A scheduler keeps a reference to its optimizer, which must outlive it.
//
// The schedulers below follow the base: StepLR, MultiStepLR, LinearLR, CosineAnnealingLR and
// LambdaLR; OneCycleLR, with options of its own, is in optim/schedulers/one_cycle_lr.h.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace brisk::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // "StepLR", "CosineAnnealingLR", ...: for messages.
  const std::string& name() const { return name_; }
  // Moves to the next epoch (or batch, for per-batch schedules) and sets its lrs.
  void step();
  // The lrs of the last step, one per parameter group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  // The index of the last step: 0 right after construction.
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

  // PyTorch's state_dict keys: {"base_lrs", "last_epoch", "_step_count", "_last_lr"} plus
  // the scheduler's settings (e.g. StepLR's "step_size" and "gamma").
  nlohmann::json state_dict() const;
  // Restores what state_dict() wrote, settings included. The optimizer's lrs are not
  // touched: they come back with the optimizer's own load_state_dict.
  void load_state_dict(const nlohmann::json& state);

 protected:
  // `name` is for error messages ("StepLR").
  LRScheduler(Optimizer& optimizer, std::string name);
  // The last line of every scheduler's constructor (the base constructor cannot call the
  // derived get_lr): the step to epoch 0.
  void initial_step();
  // The lrs for last_epoch_, one per group.
  virtual std::vector<double> get_lr() = 0;
  // The scheduler's settings in its state dict, under PyTorch's names.
  virtual void settings_to_json(nlohmann::json& state) const = 0;
  virtual void settings_from_json(const nlohmann::json& state) = 0;

  // The groups' current lrs.
  std::vector<double> group_lrs() const;

  Optimizer& optimizer_;
  std::string name_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  // True during the initial step.
  bool is_initial_ = false;

 private:
  std::vector<double> last_lr_;
};

// StepLR: multiplies the lrs by gamma every step_size epochs, as
// torch.optim.lr_scheduler.StepLR (lr = base_lr * gamma^(epoch / step_size) when nothing
// else changes them).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  // {"step_size", "gamma"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  int64_t step_size_;
  double gamma_;
};

// MultiStepLR: multiplies the lrs by gamma at each milestone epoch (by gamma^n at a
// milestone listed n times), as torch.optim.lr_scheduler.MultiStepLR.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, const std::vector<int64_t>& milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;
  // {"milestones": [sorted, with repeats], "gamma"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  // milestone -> how many times it was given
  std::map<int64_t, int> milestones_;
  double gamma_;
};

// LinearLR: scales the lrs by a factor going linearly from start_factor to end_factor over
// total_iters epochs, then keeps them, as torch.optim.lr_scheduler.LinearLR; with the
// defaults, a linear warm-up from a third of the lr:
//
//   lr(t) = base_lr * (start_factor + (end_factor - start_factor) * min(t, total_iters) / total_iters)
//
// step() uses PyTorch's recursive form of this, so the values are PyTorch's bit for bit.
class LinearLR : public LRScheduler {
 public:
  // start_factor in (0, 1], end_factor in [0, 1].
  explicit LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
                    int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  // {"start_factor", "end_factor", "total_iters"}
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

// CosineAnnealingLR: anneals each lr from its base value to eta_min over T_max epochs along
// half a cosine, as torch.optim.lr_scheduler.CosineAnnealingLR:
//
//   lr(t) = eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2
//
// step() uses PyTorch's recursive form of this (each lr from the previous one), so the
// values are PyTorch's bit for bit; past T_max the lr rises again along the cosine.
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

// LambdaLR: each lr is its base lr times a function of the epoch (or step), as
// torch.optim.lr_scheduler.LambdaLR:
//
//   lr(t) = base_lr * lr_lambda(t)
//
//   // a linear warm-up over 100 steps, then constant (transformers' get_constant_schedule_with_warmup)
//   optim::LambdaLR scheduler(opt, [](int64_t step) { return std::min(1.0, step / 100.0); });
//
// Not chainable: each step computes the lrs from the function alone. As in PyTorch, the state
// dict does not hold the function: a resumed run passes the same one again.
class LambdaLR : public LRScheduler {
 public:
  // One function for every parameter group.
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  std::vector<double> get_lr() override;
  // {"lr_lambdas": [null, ...]}, one per group, as PyTorch's for functions that are not objects
  void settings_to_json(nlohmann::json& state) const override;
  void settings_from_json(const nlohmann::json& state) override;

 private:
  std::function<double(int64_t)> lr_lambda_;
};

}  // namespace brisk::optim
