#include "train/train_loop.h"

#include <optional>

#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/fsdp/fully_shard.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "nn/functional.h"
#include "optim/clip_grad.h"
#include "tensor/error.h"
#include "train/graphed_step.h"
#include "train/sharded_optimizer.h"

namespace brisk::train {
namespace {

namespace F = nn::functional;

// How many rows of `logits` [B, C] have their largest entry at `target` [B]: int64 [].
Tensor count_correct(const Tensor& logits, const Tensor& target) {
  autograd::NoGradGuard no_grad;
  return logits.argmax(1).eq(target).sum();
}

// The model called as PyTorch's model(x) calls it, between its forward hooks: a fully_shard
// root unit gathers its parameters in them.
Tensor call_model(nn::Module& model, const Tensor& input) {
  model.run_forward_pre_hooks();
  Tensor output = model.forward(input);
  model.run_forward_hooks({output});
  return output;
}

}  // namespace

data::Batch to_device(const data::Batch& batch, Device device) {
  if (batch.data.device() == device) return batch;
  return {batch.data.to(device, /*non_blocking=*/true), batch.target.to(device, /*non_blocking=*/true)};
}

MetricSums train_step(nn::Module& model, optim::Optimizer& optimizer, const std::vector<data::Batch>& micro_batches,
                      const StepOptions& options) {
  BRISK_CHECK(!micro_batches.empty(), "train_step: no batch to train on");
  int64_t examples = 0;
  for (const data::Batch& batch : micro_batches) examples += batch.target.size(0);
  if (options.sharded != nullptr) {
    options.sharded->zero_grad();
  } else {
    optimizer.zero_grad();
  }
  auto* ddp = dynamic_cast<dist::DistributedDataParallelBase*>(&model);
  auto* zero2 = dynamic_cast<dist::Zero2DataParallelBase*>(&model);
  // A fully_shard model: the root unit first, its gradient sync switches every unit's.
  std::vector<dist::FSDPModule> units = dist::fsdp_modules(model);
  std::optional<MetricSums> sums;
  for (size_t i = 0; i < micro_batches.size(); ++i) {
    const data::Batch& batch = micro_batches[i];
    const int64_t n = batch.target.size(0);
    // Only the last micro-batch's backward all-reduces (the accumulated sum), when distributed.
    std::optional<dist::NoSyncGuard> local_only;
    std::optional<dist::Zero2NoSyncGuard> local_only_zero2;
    if (ddp != nullptr && i + 1 < micro_batches.size()) local_only.emplace(*ddp);
    if (zero2 != nullptr && i + 1 < micro_batches.size()) local_only_zero2.emplace(*zero2);
    if (!units.empty()) units.front().set_requires_gradient_sync(i + 1 == micro_batches.size());
    Tensor logits, loss;
    {
      autocast mixed_precision(batch.data.device(), options.autocast_dtype, options.autocast_dtype.has_value());
      logits = call_model(model, batch.data);  // [B, C]
      loss = F::cross_entropy(logits, batch.target, Tensor(), -100, nn::Reduction::Mean, options.label_smoothing);
    }
    // The mean over this micro-batch times its share: the terms of the mean over the step.
    Tensor scaled = micro_batches.size() == 1 ? loss : loss * (static_cast<double>(n) / examples);
    (options.scaler ? options.scaler->scale(scaled) : scaled).backward();
    autograd::NoGradGuard no_grad;
    // The mean loss in float64 times n, as the host would compute it from loss.item().
    MetricSums batch_sums(loss.detach().to(kFloat64) * static_cast<double>(n), count_correct(logits, batch.target), n);
    if (sums) {
      sums->add(batch_sums);
    } else {
      sums = batch_sums;
    }
  }
  if (options.sharded != nullptr) {
    if (options.max_grad_norm > 0) {
      if (options.scaler) options.sharded->unscale(*options.scaler);  // clipping bounds the true gradients
      options.sharded->clip_grad_norm(options.max_grad_norm);
    }
    options.sharded->step(options.scaler);
    return *sums;
  }
  if (options.max_grad_norm > 0) {
    if (options.scaler) options.scaler->unscale_(optimizer);  // clipping bounds the true gradients
    optim::clip_grad_norm_(model.parameters(), options.max_grad_norm);
  }
  if (options.scaler) {
    options.scaler->step(optimizer);
    options.scaler->update();
  } else {
    optimizer.step();
  }
  return *sums;
}

MetricSums train_step(nn::Module& model, optim::Optimizer& optimizer, const data::Batch& batch,
                      const StepOptions& options) {
  return train_step(model, optimizer, std::vector<data::Batch>{batch}, options);
}

MetricSums eval_step(nn::Module& model, const data::Batch& batch) {
  autograd::NoGradGuard no_grad;
  Tensor logits = call_model(model, batch.data);
  Tensor loss_sum = F::cross_entropy(logits, batch.target, Tensor(), -100, nn::Reduction::Sum);
  return {loss_sum, count_correct(logits, batch.target), batch.target.size(0)};
}

MetricSums train_epoch(nn::Module& model, optim::Optimizer& optimizer, optim::LRScheduler* scheduler,
                       data::DataLoader& loader, Device device, checkpoint::Progress& progress,
                       const StepCallback& on_step, const StepOptions& options, GraphedTrainStep* graphed) {
  model.train();
  loader.set_epoch(progress.epoch);
  const int64_t batches = loader.size();
  MetricSums epoch(device);
  std::vector<data::Batch> micro_batches;
  for (auto it = loader.begin(); it != loader.end(); ++it) {
    if (it.index() < progress.batch) continue;  // trained before the run was saved
    micro_batches.push_back(to_device(*it, device));
    const bool step_complete =
        static_cast<int64_t>(micro_batches.size()) == options.accumulate || it.index() + 1 == batches;
    if (!step_complete) continue;
    epoch.add(graphed != nullptr ? graphed->step(micro_batches[0])
                                 : train_step(model, optimizer, micro_batches, options));
    if (scheduler != nullptr) scheduler->step();
    progress.batch += static_cast<int64_t>(micro_batches.size());
    ++progress.step;
    micro_batches.clear();
    if (on_step) on_step(progress, epoch);
  }
  ++progress.epoch;
  progress.batch = 0;
  return epoch;
}

int64_t steps_per_epoch(int64_t batches, int64_t accumulate) { return (batches + accumulate - 1) / accumulate; }

MetricSums evaluate(nn::Module& model, data::DataLoader& loader, Device device) {
  model.eval();
  MetricSums total(device);
  for (data::Batch& batch : loader) total.add(eval_step(model, to_device(batch, device)));
  return total;
}

}  // namespace brisk::train
