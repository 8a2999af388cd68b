#pragma once
// The pieces of a classifier's training loop, one per function, for any model whose
// nn::Module::forward maps images to logits (a dist::DistributedDataParallel of one too):
//
//   for (; progress.epoch < epochs;) {
//     MetricSums train = train_epoch(model, optimizer, scheduler, train_loader, device, progress, on_step);
//     MetricSums test = evaluate(model, test_loader, device);
//     Metrics shown = train.read();  // the host waits for the device here, not in a step
//   }
//
// One step: to_device -> train_step: zero_grad, then for each of its micro-batches (one
// unless StepOptions::accumulate > 1) forward, cross_entropy, backward; clipping, the
// optimizer's step; then the LR scheduler's step. No step reads from the device (metrics and
// target checks stay there until MetricSums::read): docs/training.md, "No waiting for the
// device within a step".
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "data/data_loader.h"
#include "nn/module.h"
#include "optim/grad_scaler.h"
#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"
#include "train/metrics.h"

namespace brisk::train {

class GraphedTrainStep;
class ShardedOptimizer;

// The batch's tensors on `device` (asynchronous copies from pinned memory).
data::Batch to_device(const data::Batch& batch, Device device);

// How a training step goes besides the model and the optimizer.
struct StepOptions {
  double label_smoothing = 0.0;  // of the cross-entropy loss, as torch.nn.functional.cross_entropy's
  double max_grad_norm = 0.0;    // > 0: the gradients' total 2-norm clipped to it (optim::clip_grad_norm_)
  int64_t accumulate = 1;        // micro-batches (loader batches) per optimizer step
  // Forward and loss under brisk::autocast in this dtype (bfloat16 or float16); none: float32.
  std::optional<DType> autocast_dtype;
  // Scales the loss and steps through it (skipping steps whose gradients overflow); null: none.
  optim::GradScaler* scaler = nullptr;
  // The optimizer state sharded over the ranks (--shard zero1, zero2): zero_grad, clipping and
  // the step go through it, and `optimizer` is its local_optimizer(); null: none.
  ShardedOptimizer* sharded = nullptr;
};

// One optimizer step on the examples of `micro_batches` (one or more, already on the model's
// device), gradient accumulation when there are several: clears the gradients; for each
// micro-batch computes logits (model.forward, between the model's forward hooks, as
// PyTorch's model(x)) and the mean cross-entropy loss, scaled by the
// micro-batch's share of the step's examples, and backpropagates, adding to the gradients; so
// the gradients are those of the mean loss over all the step's examples, as if they were one
// batch (but for layers that look across a batch, such as BatchNorm in training mode). When
// `model` is a dist::DistributedDataParallel or a dist::Zero2DataParallel, every micro-batch
// but the last runs under its no_sync guard: only the last backward all-reduces (or
// reduce-scatters) the sum; a dist::fully_shard root the same through
// set_requires_gradient_sync. Then clips
// (options.max_grad_norm) and updates the parameters. With options.autocast_dtype the forward
// and the loss run under autocast; with options.scaler the loss is scaled before backward, the
// gradients unscaled before clipping, and the step skipped when they overflow (the scaler
// reads that verdict on the host: the one wait of such a step). Returns the examples' metrics
// (the loss as minimized, smoothing included), on the device.
MetricSums train_step(nn::Module& model, optim::Optimizer& optimizer, const std::vector<data::Batch>& micro_batches,
                      const StepOptions& options = {});
// One step on one batch.
MetricSums train_step(nn::Module& model, optim::Optimizer& optimizer, const data::Batch& batch,
                      const StepOptions& options = {});

// The batch's metrics without gradients, for evaluation (the model in eval mode).
MetricSums eval_step(nn::Module& model, const data::Batch& batch);

// Called after every training step with the progress so far and the metrics of the epoch
// so far (those of the batches this process trained in this run), to be read only when shown.
using StepCallback = std::function<void(const checkpoint::Progress& progress, const MetricSums& epoch)>;

// Trains what remains of epoch `progress.epoch`: its batches from `progress.batch` on (a
// resumed run skips those trained before it was saved), options.accumulate loader batches a
// step (the epoch's last step takes what is left), counting batches and steps in `progress`
// and stepping `scheduler` (when not null: a per-step schedule) after each step. With
// `graphed` (made for this model, optimizer, device and options), each step is its step():
// captured once and replayed (train/graphed_step.h). Leaves `progress` at the start of the
// next epoch. Returns the metrics of the batches it trained, on `device`.
MetricSums train_epoch(nn::Module& model, optim::Optimizer& optimizer, optim::LRScheduler* scheduler,
                       data::DataLoader& loader, Device device, checkpoint::Progress& progress,
                       const StepCallback& on_step = nullptr, const StepOptions& options = {},
                       GraphedTrainStep* graphed = nullptr);

// Optimizer steps in an epoch of `batches` loader batches, `accumulate` a step: the number a
// per-step schedule needs.
int64_t steps_per_epoch(int64_t batches, int64_t accumulate);

// Loss and accuracy over every batch of `loader`, in eval mode and without gradients, on
// `device`.
MetricSums evaluate(nn::Module& model, data::DataLoader& loader, Device device);

}  // namespace brisk::train
