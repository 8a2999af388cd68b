#pragma once
// The optimizer and the learning-rate schedule of the training program's flags
// (tools/train/train_options.h).
#include <memory>
#include <vector>

#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"
#include "tools/train/train_options.h"

namespace brisk::train {

// --optimizer sgd: optim::SGD with --lr, --momentum, --nesterov, --weight-decay (L2, through
// the gradient); adamw: optim::AdamW with --lr and --weight-decay (decoupled), PyTorch's betas
// (0.9, 0.999) and eps 1e-8.
std::unique_ptr<optim::Optimizer> make_optimizer(const TrainOptions& options, const std::vector<Tensor>& params);

// The per-step schedule of --lr-schedule over epochs * steps_per_epoch = T optimizer steps,
// with W = round(--warmup-epochs * steps_per_epoch) warm-up steps; null for none:
//   constant  none; with warm-up, lr * min(1, t / W) (optim::LambdaLR, as transformers'
//             get_constant_schedule_with_warmup)
//   cosine    lr * (1 + cos(pi t / T)) / 2 (optim::CosineAnnealingLR to 0); with warm-up,
//             lr * t / W for t < W, then lr * (1 + cos(pi (t - W) / (T - W))) / 2
//             (optim::LambdaLR, as transformers' get_cosine_schedule_with_warmup)
//   onecycle  optim::OneCycleLR with max_lr --lr over T steps: from lr / 25 up to lr over the
//             first W steps (without --warmup-epochs 30% of them), then down along a cosine
//             to lr / 25e4; SGD's momentum or AdamW's beta1 cycles between 0.95 and 0.85
std::unique_ptr<optim::LRScheduler> make_scheduler(const TrainOptions& options, optim::Optimizer& optimizer,
                                                   int64_t steps_per_epoch);

}  // namespace brisk::train
