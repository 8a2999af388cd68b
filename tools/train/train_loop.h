#pragma once
// The pieces of a classifier's training loop, one per function, so that a program reads
// top to bottom and distributed training changes only what it must (each process runs
// train_epoch on its share of the data; metrics are sums, all-reduced before they are
// divided):
//
//   for (; progress.epoch < epochs;) {
//     MetricSums train = train_epoch(model, optimizer, scheduler, train_loader, device, progress, on_step);
//     MetricSums test = evaluate(model, test_loader, device);
//     Metrics shown = train.read();  // the host waits for the device here, not in a step
//   }
//
// One step: to_device -> train_step: zero_grad, forward, cross_entropy, backward, step; then
// the LR scheduler's step. A step never waits for the device: the metrics are summed where
// the model runs and the targets are checked there (nn::functional::check_deferred_targets),
// and both are read on the host only when someone looks at them (MetricSums::read: the
// progress log, the epoch's row).
#include <cstdint>
#include <functional>

#include "checkpoint/checkpoint.h"
#include "data/data_loader.h"
#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"
#include "tools/train/classifier.h"
#include "tools/train/metrics.h"

namespace brisk::train {

// The batch's tensors on `device` (asynchronous copies from pinned memory).
data::Batch to_device(const data::Batch& batch, Device device);

// One optimizer step on one batch (already on the model's device): clears the gradients,
// computes logits and the mean cross-entropy loss (with label smoothing, as
// torch.nn.functional.cross_entropy's), backpropagates, updates the parameters. Returns the
// batch's metrics (the loss as minimized, smoothing included), on the device.
MetricSums train_step(const Classifier& model, optim::Optimizer& optimizer, const data::Batch& batch,
                      double label_smoothing = 0.0);

// The batch's metrics without gradients, for evaluation (the model in eval mode).
MetricSums eval_step(const Classifier& model, const data::Batch& batch);

// Called after every training step with the progress so far and the metrics of the epoch
// so far (those of the batches this process trained in this run), to be read only when shown.
using StepCallback = std::function<void(const checkpoint::Progress& progress, const MetricSums& epoch)>;

// Trains what remains of epoch `progress.epoch`: its batches from `progress.batch` on (a
// resumed run skips those trained before it was saved), counting each step in `progress`
// and stepping `scheduler` (when not null: a per-batch schedule) after each. Leaves
// `progress` at the start of the next epoch. Returns the metrics of the batches it trained,
// on `device`.
MetricSums train_epoch(const Classifier& model, optim::Optimizer& optimizer, optim::LRScheduler* scheduler,
                       data::DataLoader& loader, Device device, checkpoint::Progress& progress,
                       const StepCallback& on_step = nullptr, double label_smoothing = 0.0);

// Loss and accuracy over every batch of `loader`, in eval mode and without gradients, on
// `device`.
MetricSums evaluate(const Classifier& model, data::DataLoader& loader, Device device);

}  // namespace brisk::train
