#pragma once
// LinearLR: scales the lrs by a factor going linearly from start_factor to end_factor over
// total_iters epochs, then keeps them, as torch.optim.lr_scheduler.LinearLR; with the
// defaults, a linear warm-up from a third of the lr:
//
//   lr(t) = base_lr * (start_factor + (end_factor - start_factor) * min(t, total_iters) / total_iters)
//
// step() uses PyTorch's recursive form of this, so the values are PyTorch's bit for bit.
#include "optim/schedulers/lr_scheduler.h"

namespace brisk::optim {

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

}  // namespace brisk::optim
