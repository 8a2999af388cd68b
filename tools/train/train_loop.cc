#include "tools/train/train_loop.h"

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::train {
namespace {

namespace F = nn::functional;

// How many rows of `logits` [B, C] have their largest entry at `target` [B]: int64 [].
Tensor count_correct(const Tensor& logits, const Tensor& target) {
  autograd::NoGradGuard no_grad;
  return logits.argmax(1).eq(target).sum();
}

}  // namespace

data::Batch to_device(const data::Batch& batch, Device device) {
  if (batch.data.device() == device) return batch;
  return {batch.data.to(device, /*non_blocking=*/true), batch.target.to(device, /*non_blocking=*/true)};
}

MetricSums train_step(const Classifier& model, optim::Optimizer& optimizer, const data::Batch& batch,
                      double label_smoothing) {
  optimizer.zero_grad();
  Tensor logits = model.forward(batch.data);  // [B, C]
  Tensor loss = F::cross_entropy(logits, batch.target, Tensor(), -100, nn::Reduction::Mean, label_smoothing);
  loss.backward();
  optimizer.step();
  autograd::NoGradGuard no_grad;
  const int64_t n = batch.target.size(0);
  // The mean loss in float64 times n, as the host would compute it from loss.item().
  return {loss.detach().to(kFloat64) * static_cast<double>(n), count_correct(logits, batch.target), n};
}

MetricSums eval_step(const Classifier& model, const data::Batch& batch) {
  autograd::NoGradGuard no_grad;
  Tensor logits = model.forward(batch.data);
  Tensor loss_sum = F::cross_entropy(logits, batch.target, Tensor(), -100, nn::Reduction::Sum);
  return {loss_sum, count_correct(logits, batch.target), batch.target.size(0)};
}

MetricSums train_epoch(const Classifier& model, optim::Optimizer& optimizer, optim::LRScheduler* scheduler,
                       data::DataLoader& loader, Device device, checkpoint::Progress& progress,
                       const StepCallback& on_step, double label_smoothing) {
  model.module->train();
  loader.set_epoch(progress.epoch);
  MetricSums epoch(device);
  for (auto it = loader.begin(); it != loader.end(); ++it) {
    if (it.index() < progress.batch) continue;  // trained before the run was saved
    epoch.add(train_step(model, optimizer, to_device(*it, device), label_smoothing));
    if (scheduler != nullptr) scheduler->step();
    ++progress.batch;
    ++progress.step;
    if (on_step) on_step(progress, epoch);
  }
  ++progress.epoch;
  progress.batch = 0;
  return epoch;
}

MetricSums evaluate(const Classifier& model, data::DataLoader& loader, Device device) {
  model.module->eval();
  MetricSums total(device);
  for (data::Batch& batch : loader) total.add(eval_step(model, to_device(batch, device)));
  return total;
}

}  // namespace brisk::train
