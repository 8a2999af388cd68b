#include "train/graphed_step.h"

#include "distributed/ddp/distributed_data_parallel.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tensor/error.h"

namespace brisk::train {

GraphedTrainStep::GraphedTrainStep(nn::Module& model, optim::Optimizer& optimizer, Device device,
                                   const StepOptions& options)
    : model_(model), optimizer_(optimizer), device_(device), options_(options), graph_(device) {
  BRISK_CHECK(dynamic_cast<optim::SGD*>(&optimizer) != nullptr,
              "a captured training step needs the SGD optimizer: {} reads per-step values on the host (Adam's step "
              "count for its bias correction), which a replay would not update",
              optimizer.name());
  BRISK_CHECK(options.scaler == nullptr,
              "a captured training step cannot use a GradScaler (float16 autocast): it reads on the host whether the "
              "gradients overflowed, every step");
  BRISK_CHECK(options.accumulate == 1,
              "a captured training step trains on one batch a step; got gradient accumulation over {} batches",
              options.accumulate);
  BRISK_CHECK(dynamic_cast<dist::DistributedDataParallelBase*>(&model) == nullptr,
              "a captured training step cannot run a DistributedDataParallel model (its all-reduces are not "
              "captured); train without the graph");
}

std::string GraphedTrainStep::optimizer_options() const {
  std::string all;
  for (const optim::ParamGroup& group : optimizer_.param_groups()) all += group.options().to_json().dump();
  return all;
}

void GraphedTrainStep::capture() {
  graph_.reset();
  // Deferred target checks read the device; one falling due inside the capture would be
  // refused, so the count of unchecked calls starts afresh here.
  nn::functional::check_deferred_targets();
  captured_options_ = optimizer_options();
  // The recipe's zero_grad(set_to_none) before the capture: the gradients of an earlier
  // capture or eager step are freed now, outside it (train_step's own zero_grad then finds
  // none), and backward makes them in the new graph's pool.
  optimizer_.zero_grad();
  graphs::GraphCapture capture(graph_);
  static_sums_ = std::make_unique<MetricSums>(train_step(model_, optimizer_, static_batch_, options_));
  ++captures_;
}

MetricSums GraphedTrainStep::step(const data::Batch& batch) {
  const bool first = eager_steps_ == 0 && captures_ == 0;
  const bool captured_shape = static_batch_.data.defined() && batch.data.sizes() == static_batch_.data.sizes() &&
                              batch.target.sizes() == static_batch_.target.sizes();
  if (first || (static_batch_.data.defined() && !captured_shape)) {
    ++eager_steps_;
    return train_step(model_, optimizer_, batch, options_);
  }
  if (!static_batch_.data.defined()) {
    static_batch_ = {batch.data.clone(), batch.target.clone()};
  } else {
    static_batch_.data.copy_(batch.data);
    static_batch_.target.copy_(batch.target);
  }
  if (!graph_.is_captured() || optimizer_options() != captured_options_) capture();
  graph_.replay();
  ++replays_;
  return static_sums_->clone();
}

}  // namespace brisk::train
