#include "tools/train/distributed_run.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "cuda/device.h"
#include "data/subset.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/ddp/module_sync.h"
#include "distributed/distributed.h"
#include "tensor/error.h"

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

Device resolve_device(const std::string& flag, bool distributed, int local_rank) {
  if (flag == "cpu" || (flag == "auto" && !cuda::is_available())) return kCPU;
  const std::string spec = flag == "auto" ? "cuda" : flag;
  Device device(spec);
  const bool numbered = spec.find(':') != std::string::npos;
  // One device per process: the launcher's local ranks 0, 1, ... take devices 0, 1, ...
  if (!numbered) device = Device(device.type, distributed ? local_rank : 0);
  if (device.is_cuda()) {
    BRISK_CHECK(cuda::is_available(), "--device {}: {}", flag, cuda::unavailable_reason());
    BRISK_CHECK(device.index < cuda::device_count(), "--device {}: {} is not there ({}{} GPUs visible)", flag,
                device.str(), numbered ? "" : fmt::format("LOCAL_RANK {}; ", local_rank), cuda::device_count());
  }
  return device;
}

DistributedRun start_distributed(const std::string& dist_backend, const std::string& device) {
  DistributedRun run;
  run.enabled = !dist_backend.empty() || env_int("WORLD_SIZE", 1) > 1;
  run.local_rank = run.enabled ? env_int("LOCAL_RANK", 0) : 0;
  run.device = resolve_device(device, run.enabled, run.local_rank);
  if (run.device.is_cuda()) cuda::set_device(run.device.index);
  if (!run.enabled) return run;

  run.backend =
      dist_backend.empty() || dist_backend == "auto" ? (run.device.is_cuda() ? "nccl" : "gloo") : dist_backend;
  BRISK_CHECK(run.backend != "nccl" || run.device.is_cuda(),
              "--dist-backend nccl takes CUDA tensors only, and --device {} trains on {}: use --device cuda, or "
              "--dist-backend gloo",
              device, run.device.str());
  BRISK_CHECK(run.backend != "nccl" || device.find(':') == std::string::npos || env_int("WORLD_SIZE", 1) == 1,
              "--dist-backend nccl needs one GPU per process, and --device {} puts every process on {}: use --device "
              "cuda (GPU LOCAL_RANK), or --dist-backend gloo",
              device, run.device.str());
  dist::ProcessGroupOptions options;
  options.device = run.device;
  dist::init_process_group(run.backend, "env://", -1, -1, options);
  run.rank = dist::get_rank();
  run.world_size = dist::get_world_size();
  run.group = dist::default_group();
  return run;
}

void finish_distributed(const DistributedRun& run) {
  if (run.enabled) dist::destroy_process_group();
}

int64_t per_rank_batch_size(int64_t global_batch, int world_size, int64_t accumulate) {
  BRISK_CHECK(global_batch % (world_size * accumulate) == 0,
              "--batch-size {} (the global batch) does not split evenly over {} processes{}", global_batch, world_size,
              accumulate > 1 ? fmt::format(" x {} micro-steps (--accumulate)", accumulate) : "");
  return global_batch / (world_size * accumulate);
}

Classifier wrap_ddp(const Classifier& local, const DistributedRun& run) {
  // Every rank has as many batches (DistributedSampler pads the shards to one length), so the
  // uneven-input check, a collective read back on the host at every forward (a wait for the
  // device each step), guards nothing here.
  dist::DistributedDataParallel ddp(std::make_shared<ForwardModule>(local), run.group,
                                    dist::DistributedDataParallelOptions().check_uneven_inputs(false));
  return {ddp.ptr(), [ddp](const Tensor& input) { return ddp->forward(input); },
          [ddp]() -> std::shared_ptr<void> { return std::make_shared<dist::NoSyncGuard>(*ddp.ptr()); }};
}

void broadcast_buffers(const Classifier& local, const DistributedRun& run) {
  const std::vector<Tensor> buffers = local.module->buffers();
  if (run.enabled && run.world_size > 1 && !buffers.empty()) dist::broadcast_coalesced(*run.group, buffers, 0);
}

Metrics all_reduce_metrics(const MetricSums& metrics, const DistributedRun& run) {
  if (!run.enabled) return metrics.read();
  Tensor sums = metrics.packed().to(run.group->device());
  run.group->all_reduce(sums, dist::ReduceOp::SUM)->wait();
  return read_metrics(sums);
}

std::shared_ptr<const data::Dataset> evaluation_shard(const std::shared_ptr<const data::Dataset>& dataset,
                                                      const DistributedRun& run) {
  if (!run.enabled) return dataset;
  const int64_t size = dataset->size();
  const int64_t base = size / run.world_size;
  const int64_t extra = size % run.world_size;
  const int64_t begin = run.rank * base + std::min<int64_t>(run.rank, extra);
  const int64_t length = base + (run.rank < extra ? 1 : 0);
  return std::make_shared<data::Subset>(dataset, data::index_range(begin, length));
}

}  // namespace brisk::train
