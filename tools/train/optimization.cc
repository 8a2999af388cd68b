#include "tools/train/optimization.h"

#include <algorithm>
#include <cmath>

#include "optim/adam.h"
#include "optim/schedulers/one_cycle_lr.h"
#include "optim/sgd.h"
#include "tensor/error.h"

namespace brisk::train {

std::unique_ptr<optim::Optimizer> make_optimizer(const TrainOptions& options, const std::vector<Tensor>& params) {
  if (options.optimizer == "adamw") {
    return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(options.lr).weight_decay(options.weight_decay));
  }
  BRISK_CHECK(options.optimizer == "sgd", "unknown optimizer \"{}\" (expected sgd or adamw)", options.optimizer);
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(options.lr)
                                                  .momentum(options.momentum)
                                                  .nesterov(options.nesterov)
                                                  .weight_decay(options.weight_decay));
}

std::unique_ptr<optim::LRScheduler> make_scheduler(const TrainOptions& options, optim::Optimizer& optimizer,
                                                   int64_t steps_per_epoch) {
  const int64_t total = options.epochs * steps_per_epoch;
  const int64_t warmup = std::llround(options.warmup_epochs * steps_per_epoch);
  if (options.lr_schedule == "onecycle") {
    optim::OneCycleLROptions one_cycle(options.lr, total);
    if (warmup > 0) one_cycle.pct_start(static_cast<double>(warmup) / total);
    return std::make_unique<optim::OneCycleLR>(optimizer, one_cycle);
  }
  if (options.lr_schedule == "cosine") {
    if (warmup == 0) return std::make_unique<optim::CosineAnnealingLR>(optimizer, total);
    return std::make_unique<optim::LambdaLR>(optimizer, [warmup, total](int64_t t) {
      if (t < warmup) return static_cast<double>(t) / warmup;
      return 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(t - warmup) / static_cast<double>(total - warmup)));
    });
  }
  BRISK_CHECK(options.lr_schedule == "constant", "unknown lr schedule \"{}\" (expected cosine, onecycle or constant)",
              options.lr_schedule);
  if (warmup == 0) return nullptr;
  return std::make_unique<optim::LambdaLR>(
      optimizer, [warmup](int64_t t) { return std::min(1.0, static_cast<double>(t) / warmup); });
}

}  // namespace brisk::train
