#pragma once
// train_step (train/train_loop.h) captured once as a graph of device work (tensor/graphs/
// graph.h) and replayed for every batch of the captured shape: `train --cuda-graph`,
// `train_bench --cuda-graph`. PyTorch's whole-network capture recipe (docs/cuda_graphs.md):
//   - the first step runs eagerly: a warm-up that makes the optimizer's state (momentum
//     buffers) and fills the device's caches (cuDNN's algorithms, cuBLAS's workspace);
//   - the next batch is copied into static input and target tensors, and one train_step on
//     them is captured (its zero_grad sets the gradients to none, so backward makes them in the
//     graph's pool); each batch after that is copied into the static tensors and replayed;
//   - a batch of another shape (the epoch's last, partial batch) runs eagerly;
//   - what the captured step read on the host stays correct: the optimizer's options (the
//     learning rate a schedule sets, momentum, ...) are compared before each replay, and a
//     change is captured anew.
// The parameters and the metrics equal those of train_step, batch for batch, bit for bit.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/data_loader.h"
#include "nn/module.h"
#include "optim/optimizer.h"
#include "tensor/graphs/graph.h"
#include "train/metrics.h"
#include "train/train_loop.h"

namespace brisk::train {

class GraphedTrainStep {
 public:
  // Raises, naming what, for steps whose capture would replay wrongly: a device that is not
  // captured (the CPU), an optimizer other than SGD (Adam's bias correction reads its step
  // count on the host every step), a GradScaler (it reads its overflow verdict on the host),
  // gradient accumulation, a DistributedDataParallel model.
  GraphedTrainStep(nn::Module& model, optim::Optimizer& optimizer, Device device, const StepOptions& options = {});

  // train_step(model, optimizer, batch, options), `batch` on the device, eagerly or by replay
  // as said above. The metrics are the step's own tensors (copies of the graph's outputs).
  MetricSums step(const data::Batch& batch);

  // Captures so far (one, plus one per change of the optimizer's options), replays, and steps
  // run eagerly.
  int64_t captures() const { return captures_; }
  int64_t replays() const { return replays_; }
  int64_t eager_steps() const { return eager_steps_; }

 private:
  std::string optimizer_options() const;
  void capture();

  nn::Module& model_;
  optim::Optimizer& optimizer_;
  Device device_;
  StepOptions options_;
  graphs::Graph graph_;
  data::Batch static_batch_;
  std::unique_ptr<MetricSums> static_sums_;
  std::string captured_options_;
  int64_t captures_ = 0, replays_ = 0, eager_steps_ = 0;
};

}  // namespace brisk::train
