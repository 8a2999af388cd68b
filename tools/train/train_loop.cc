#include "tools/train/train_loop.h"

#include <vector>

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

MetricSums::MetricSums(Device device)
    : loss_sum_(zeros({}, TensorOptions(kFloat64).device(device))),
      correct_(zeros({}, TensorOptions(kInt64).device(device))) {}

MetricSums::MetricSums(const Tensor& loss_sum, const Tensor& correct, int64_t count)
    : loss_sum_(loss_sum.detach().to(kFloat64)), correct_(correct.detach().to(kInt64)), count_(count) {
  BRISK_CHECK(loss_sum_.dim() == 0 && correct_.dim() == 0 && loss_sum_.device() == correct_.device(),
              "MetricSums: expected a loss sum and a correct count of one element on one device, got {} and {}",
              loss_sum.describe(), correct.describe());
}

void MetricSums::add(const MetricSums& other) {
  autograd::NoGradGuard no_grad;
  loss_sum_ = loss_sum_ + other.loss_sum_;
  correct_ = correct_ + other.correct_;
  count_ += other.count_;
}

Tensor MetricSums::packed() const {
  autograd::NoGradGuard no_grad;
  // float64 holds the counts exactly (up to 2^53) next to the loss sum, in one tensor.
  Tensor count = full({1}, count_, TensorOptions(kFloat64).device(device()));
  return cat({loss_sum_.view({1}), correct_.to(kFloat64).view({1}), count});
}

Metrics MetricSums::read() const { return read_metrics(packed()); }

Metrics read_metrics(const Tensor& packed) {
  BRISK_CHECK(packed.dtype() == kFloat64 && packed.sizes() == Shape{3},
              "read_metrics: expected a float64 [3] (loss sum, correct, count), got {}", packed.describe());
  F::check_deferred_targets();
  std::vector<double> values = packed.to_vector<double>();
  return {values[0], static_cast<int64_t>(values[1]), static_cast<int64_t>(values[2])};
}

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
