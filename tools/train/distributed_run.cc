#include "tools/train/distributed_run.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "cuda/device.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::train {
namespace {

// An integer environment variable, or `fallback` when it is unset.
int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  long parsed = std::strtol(value, &end, 10);
  BRISK_CHECK(*end == '\0', "{}={} is not an integer", name, value);
  return static_cast<int>(parsed);
}

// The classifier's forward as a module's, so that DistributedDataParallel can wrap it; the
// classifier's module is its child, so DDP sees (and broadcasts) its parameters and buffers.
class ForwardModule : public nn::Module {
 public:
  explicit ForwardModule(const Classifier& classifier) : forward_(classifier.forward) {
    register_module("net", classifier.module);
  }
  std::string name() const override { return "ForwardModule"; }
  Tensor forward(const Tensor& input) { return forward_(input); }

 private:
  std::function<Tensor(const Tensor&)> forward_;
};

}  // namespace

DistributedRun start_distributed(const std::string& dist_backend, const std::string& device) {
  DistributedRun run;
  run.enabled = !dist_backend.empty() || env_int("WORLD_SIZE", 1) > 1;
  if (!run.enabled) return run;

  run.local_rank = env_int("LOCAL_RANK", 0);
  if (device == "cuda" || (device == "auto" && cuda::is_available())) {
    BRISK_CHECK(cuda::is_available(), "--device cuda: {}", cuda::unavailable_reason());
    // One process per GPU: the launcher's local ranks 0, 1, ... take GPUs 0, 1, ...
    BRISK_CHECK(run.local_rank < cuda::device_count(), "LOCAL_RANK {} has no GPU: {} visible", run.local_rank,
                cuda::device_count());
    cuda::set_device(run.local_rank);
    run.device = cuda_device(run.local_rank);
  }
  run.backend = dist_backend.empty() || dist_backend == "auto" ? (run.device.is_cuda() ? "nccl" : "gloo")
                                                               : dist_backend;
  BRISK_CHECK(run.backend != "nccl" || run.device.is_cuda(), "--dist-backend nccl needs CUDA devices, this run is on {}",
              run.device.str());
  dist::init_process_group(run.backend, "env://");
  run.rank = dist::get_rank();
  run.world_size = dist::get_world_size();
  run.group = dist::default_group();
  return run;
}

void finish_distributed(const DistributedRun& run) {
  if (run.enabled) dist::destroy_process_group();
}

int64_t per_rank_batch_size(int64_t global_batch, int world_size) {
  BRISK_CHECK(global_batch % world_size == 0,
              "--batch-size {} (the global batch) does not split evenly over {} processes", global_batch, world_size);
  return global_batch / world_size;
}

Classifier wrap_ddp(const Classifier& local, const DistributedRun& run) {
  dist::DistributedDataParallel ddp(std::make_shared<ForwardModule>(local), run.group);
  return {ddp.ptr(), [ddp](const Tensor& input) { return ddp->forward(input); }};
}

Metrics all_reduce_metrics(const Metrics& metrics, const DistributedRun& run) {
  if (!run.enabled) return metrics;
  // float64 holds the counts exactly (up to 2^53) next to the loss sum, in one collective.
  Tensor sums = native::empty({3}, TensorOptions().dtype(kFloat64));
  double* values = sums.data_ptr<double>();
  values[0] = metrics.loss_sum;
  values[1] = static_cast<double>(metrics.correct);
  values[2] = static_cast<double>(metrics.count);
  Tensor on_device = sums.to(run.device);
  dist::all_reduce(on_device, dist::ReduceOp::SUM, run.group);
  sums = on_device.to(kCPU);
  values = sums.data_ptr<double>();
  return {values[0], static_cast<int64_t>(values[1]), static_cast<int64_t>(values[2])};
}

std::shared_ptr<data::TensorDataset> evaluation_shard(const std::shared_ptr<data::TensorDataset>& dataset,
                                                      const DistributedRun& run) {
  if (!run.enabled) return dataset;
  const int64_t size = dataset->size();
  const int64_t base = size / run.world_size;
  const int64_t extra = size % run.world_size;
  const int64_t begin = run.rank * base + std::min<int64_t>(run.rank, extra);
  const int64_t length = base + (run.rank < extra ? 1 : 0);
  return std::make_shared<data::TensorDataset>(dataset->data().narrow(0, begin, length),
                                               dataset->target().narrow(0, begin, length));
}

}  // namespace brisk::train
