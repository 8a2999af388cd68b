#include "distributed/init_distributed.h"

#include <fmt/format.h>

#include "cuda/device.h"
#include "distributed/distributed.h"
#include "distributed/environment.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

constexpr const char* kCaller = "init_distributed";

int world_size_from_environment() {
  const int size = env_rank_value(kCaller, {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"});
  return size < 0 ? 1 : size;
}

}  // namespace

int local_rank_from_environment() {
  const int local_rank = env_rank_value(kCaller, {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"});
  return local_rank < 0 ? 0 : local_rank;
}

Device resolve_device(const std::string& device, bool distributed, int local_rank) {
  if (device == "cpu" || (device == "auto" && !cuda::is_available())) return kCPU;
  const std::string spec = device == "auto" ? "cuda" : device;
  Device resolved(spec);
  const bool numbered = spec.find(':') != std::string::npos;
  // One device per process: the launcher's local ranks 0, 1, ... take devices 0, 1, ...
  if (!numbered) resolved = Device(resolved.type, distributed ? local_rank : 0);
  if (resolved.is_cuda()) {
    BRISK_CHECK(cuda::is_available(), "device {}: {}", device, cuda::unavailable_reason());
    BRISK_CHECK(resolved.index < cuda::device_count(), "device {}: {} is not there ({}{} GPUs visible)", device,
                resolved.str(), numbered ? "" : fmt::format("LOCAL_RANK {}; ", local_rank), cuda::device_count());
  }
  return resolved;
}

DistributedContext init_distributed(const InitDistributedOptions& options) {
  DistributedContext context;
  const int world_size = world_size_from_environment();
  context.enabled = !options.backend().empty() || world_size > 1;
  context.local_rank = context.enabled ? local_rank_from_environment() : 0;
  context.device = resolve_device(options.device(), context.enabled, context.local_rank);
  if (context.device.is_cuda()) cuda::set_device(context.device.index);
  if (!context.enabled) return context;

  const std::string& backend = options.backend();
  context.backend = backend.empty() || backend == "auto" ? (context.device.is_cuda() ? "nccl" : "gloo") : backend;
  BRISK_CHECK(context.backend != "nccl" || context.device.is_cuda(),
              "{}: backend nccl takes CUDA tensors only, and device {} trains on {}: use device cuda, or backend gloo",
              kCaller, options.device(), context.device.str());
  BRISK_CHECK(context.backend != "nccl" || options.device().find(':') == std::string::npos || world_size == 1,
              "{}: backend nccl needs one GPU per process, and device {} puts every process on {}: use device cuda "
              "(GPU LOCAL_RANK), or backend gloo",
              kCaller, options.device(), context.device.str());
  ProcessGroupOptions group_options = options.group_options();
  group_options.device = context.device;
  init_process_group(context.backend, "env://", -1, -1, group_options);
  context.rank = get_rank();
  context.world_size = get_world_size();
  context.group = default_group();
  return context;
}

void finish_distributed(const DistributedContext& context) {
  if (context.enabled) destroy_process_group();
}

}  // namespace brisk::dist
