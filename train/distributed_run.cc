#include "train/distributed_run.h"

#include <algorithm>

#include "distributed/all_reduce_metrics.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/host_value_collectives.h"
#include "tensor/error.h"

namespace brisk::train {

int64_t per_rank_batch_size(int64_t global_batch, int world_size, int64_t accumulate) {
  BRISK_CHECK(global_batch % (world_size * accumulate) == 0,
              "--batch-size {} (the global batch) does not split evenly over {} processes{}", global_batch, world_size,
              accumulate > 1 ? fmt::format(" x {} micro-steps (--accumulate)", accumulate) : "");
  return global_batch / (world_size * accumulate);
}

std::shared_ptr<dist::DistributedDataParallelBase> wrap_ddp(const std::shared_ptr<nn::Module>& model,
                                                            const dist::DistributedContext& run) {
  // Every rank has as many batches (DistributedSampler pads the shards to one length), so the
  // uneven-input check, a collective read back on the host at every forward (a wait for the
  // device each step), guards nothing here.
  return dist::DistributedDataParallel(model, run.group,
                                       dist::DistributedDataParallelOptions().check_uneven_inputs(false))
      .ptr();
}

void broadcast_buffers(const nn::Module& model, const dist::DistributedContext& run) {
  const std::vector<Tensor> buffers = model.buffers();
  if (run.enabled && run.world_size > 1 && !buffers.empty()) dist::broadcast_coalesced(*run.group, buffers, 0);
}

Metrics all_reduce_metrics(const MetricSums& metrics, const dist::DistributedContext& run) {
  if (!run.enabled) return metrics.read();
  return read_metrics(dist::all_reduce_metrics(metrics.packed(), dist::ReduceOp::SUM, run.group));
}

void check_same_resume_step(int64_t step, const dist::DistributedContext& run) {
  if (!run.enabled) return;
  std::vector<int64_t> steps = dist::all_gather_values(*run.group, {step});
  if (std::all_of(steps.begin(), steps.end(), [&](int64_t s) { return s == steps[0]; })) return;
  std::string found;
  for (size_t rank = 0; rank < steps.size(); ++rank) {
    found += fmt::format("{}rank {} {}", rank == 0 ? "" : ", ", rank,
                         steps[rank] < 0 ? "found none" : fmt::format("resumes at step {}", steps[rank]));
  }
  BRISK_FAIL(
      "--resume auto: the ranks found different newest checkpoints ({}); every rank must see rank 0's checkpoint "
      "files (one directory, shared by every node)",
      found);
}

std::shared_ptr<const data::Dataset> evaluation_shard(const std::shared_ptr<const data::Dataset>& dataset,
                                                      const dist::DistributedContext& run) {
  if (!run.enabled) return dataset;
  const int64_t size = dataset->size();
  const int64_t base = size / run.world_size;
  const int64_t extra = size % run.world_size;
  const int64_t begin = run.rank * base + std::min<int64_t>(run.rank, extra);
  const int64_t length = base + (run.rank < extra ? 1 : 0);
  return std::make_shared<data::Subset>(dataset, data::index_range(begin, length));
}

}  // namespace brisk::train
