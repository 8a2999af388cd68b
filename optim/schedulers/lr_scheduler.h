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
#include <nlohmann/json.hpp>

#include <cstdint>
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

}  // namespace brisk::optim
