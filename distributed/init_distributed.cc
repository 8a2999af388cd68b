#include "distributed/init_distributed.h"

#include <fmt/format.h>

#include "cuda/device.h"
#include "distributed/backend_registry.h"
#include "distributed/distributed.h"
#include "distributed/job_environment.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

constexpr const char* kCaller = "init_distributed";

}  // namespace

Device resolve_device(const std::string& device, bool distributed, int local_rank, const std::string& local_rank_from) {
  if (device == "cpu" || (device == "auto" && !cuda::is_available())) return kCPU;
  const std::string spec = device == "auto" ? "cuda" : device;
  Device resolved(spec);
  const bool numbered = spec.find(':') != std::string::npos;
  // One device per process: the launcher's local ranks 0, 1, ... take devices 0, 1, ...
  if (!numbered) resolved = Device(resolved.type, distributed ? local_rank : 0);
  if (resolved.is_cuda()) {
    BRISK_CHECK(cuda::is_available(), "device {}: {}", device, cuda::unavailable_reason());
    BRISK_CHECK(resolved.index < cuda::device_count(), "device {}: {} is not there ({}{} GPUs visible)", device,
                resolved.str(), numbered ? "" : fmt::format("local rank {} from {}; ", local_rank, local_rank_from),
                cuda::device_count());
  }
  return resolved;
}

DistributedContext init_distributed(const InitDistributedOptions& options) {
  DistributedContext context;
  const JobEnvironment job = resolve_job_environment(kCaller);
  const int world_size = job.world_size.known() ? job.world_size.value : 1;
  context.enabled = !options.backend().empty() || world_size > 1;
  context.local_rank = context.enabled && job.local_rank.known() ? job.local_rank.value : 0;
  context.device = resolve_device(options.device(), context.enabled, context.local_rank,
                                  job.local_rank.known() ? job.local_rank.reading : "no variable (0)");
  if (context.device.is_cuda()) cuda::set_device(context.device.index);
  if (!context.enabled) return context;

  const std::string& backend = options.backend();
  context.backend = backend.empty() || backend == "auto" ? (context.device.is_cuda() ? "nccl" : "gloo") : backend;
  // Started by an MPI starter that names no store host (mpirun): Gloo could not meet, MPI can,
  // when the program links it.
  if ((backend.empty() || backend == "auto") && context.backend == "gloo" && !job.master_addr.known() &&
      backend_rendezvous("mpi") != nullptr && job.starter != "torchrun" && job.starter != "slurm" &&
      job.starter != "none") {
    context.backend = "mpi";
  }
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
