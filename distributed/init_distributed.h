#pragma once
// dist::init_distributed: a training program's first distributed call. It reads what the
// launcher (tools/launch, srun, mpirun; not torchrun: docs/launch.md) put in the
// environment, picks this process's device, makes it current and joins the default process
// group on it; in a process started on its own it joins nothing, so one program runs either
// way:
//
//   dist::DistributedContext ctx = dist::init_distributed();   // device "auto": GPU LOCAL_RANK, else the CPU
//   model->to(ctx.device);
//   dist::DistributedDataParallel<nn::Sequential> ddp{nullptr};
//   if (ctx.enabled) ddp = dist::DistributedDataParallel(model);  // over the default group
//   ...
//   if (ctx.is_main()) save(...);                              // rank 0 writes the files
//   dist::finish_distributed(ctx);
#include <memory>
#include <string>

#include "distributed/process_group.h"
#include "tensor/arg.h"
#include "tensor/device.h"

namespace brisk::dist {

struct InitDistributedOptions {
  // Where this process trains: "cpu"; "cuda" or "sim": the device numbered by the local rank
  // when distributed (one per process), else the first; "cuda:N" or "sim:N": that one, for
  // every process; "auto": "cuda" when a GPU is visible, else "cpu".
  BRISK_ARG(std::string, device) = "auto";
  // "" or "auto": NCCL for a CUDA device, Gloo otherwise (MPI instead of Gloo in a program
  // linking //distributed/mpi that mpirun started without MASTER_ADDR); or "gloo", "nccl", "mpi". Naming one (not "") makes the run distributed even in a world
  // of one.
  BRISK_ARG(std::string, backend) = "";
  // The default group's options; its device is set to the chosen one.
  BRISK_ARG(ProcessGroupOptions, group_options) = {};
};

struct DistributedContext {
  bool enabled = false;  // false: one process, no process group; the fields below say so
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;                   // the rank among this machine's processes
  std::string backend;                  // "gloo", "nccl" or "mpi" when enabled
  Device device = kCPU;                 // where this process trains, distributed or not
  std::shared_ptr<ProcessGroup> group;  // the default group, on `device`; null when not enabled

  // The process that speaks for the job: logs, files, checkpoints.
  bool is_main() const { return rank == 0; }
};

// Distributed exactly when the job's environment (resolve_job_environment: torchrun's,
// Slurm's, MPI's variables) says its world size is above 1, or options.backend names a
// backend; an environment it refuses raises brisk::Error naming every variable at fault. Then it calls
// init_process_group(backend, "env://") with the group on the chosen device, whose errors
// name what is missing (RANK, MASTER_ADDR, ...). Raises brisk::Error naming the option for a
// device that is not there, and refuses, before joining, a backend that cannot take the
// device's tensors (nccl with a CPU or simulated device) or nccl with every process on one
// GPU.
DistributedContext init_distributed(const InitDistributedOptions& options = {});

// Leaves the job (destroy_process_group) when `context` is distributed; nothing otherwise.
void finish_distributed(const DistributedContext& context);

// The device of options.device (see InitDistributedOptions) for a process of local rank
// `local_rank`, read as `local_rank_from` (e.g. "SLURM_LOCALID=3"). Raises brisk::Error
// naming the device, and the local rank's reading, for a CUDA device that is not there.
Device resolve_device(const std::string& device, bool distributed, int local_rank,
                      const std::string& local_rank_from = "the argument");

}  // namespace brisk::dist
