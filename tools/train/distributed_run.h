#pragma once
// What train changes when it runs as one of several processes started by the launcher
// (tools/launch, docs/launch.md): the device, the process group on it, the DDP-wrapped model,
// and the metrics summed over the ranks.
//
//   DistributedRun run = start_distributed(options.dist_backend, options.device);
//   model.module->to(run.device);
//   Classifier trained = run.enabled ? wrap_ddp(local, run) : local;   // all-reduces gradients
//   Metrics global = all_reduce_metrics(local_sums, run);              // identical on every rank
//   finish_distributed(run);
//
// Every collective of the run takes tensors on run.group->device(), which is run.device: the
// group is made for the training device whatever the backend (Gloo stages a device's
// tensors through host memory, NCCL takes CUDA tensors only).
#include <cstdint>
#include <memory>
#include <string>

#include "data/dataset.h"
#include "distributed/process_group.h"
#include "tensor/device.h"
#include "tools/train/classifier.h"
#include "tools/train/train_loop.h"

namespace brisk::train {

struct DistributedRun {
  bool enabled = false;  // false: one process, no process group, nothing below applies
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string backend;                        // "gloo" or "nccl" when enabled
  Device device = kCPU;                       // where the model trains, distributed or not
  std::shared_ptr<dist::ProcessGroup> group;  // on `device`

  bool is_main() const { return rank == 0; }
};

// Decides the run's device, whether it is distributed, and joins the job when it is.
// `dist_backend` is --dist-backend: "" (not given) means distributed exactly when
// WORLD_SIZE > 1; "auto", "gloo" or "nccl" force it (auto: nccl when the device is CUDA, gloo
// otherwise). `device` is --device (see resolve_device); a CUDA device is made current. The
// process group is made on the device (ProcessGroupOptions::device) through
// init_process_group("env://"), whose errors (no RANK, an unreachable MASTER_ADDR) name what
// is missing. A backend that cannot take the device's tensors (nccl with a CPU or sim
// device), or nccl with every rank on one GPU, is refused before joining, naming both flags.
DistributedRun start_distributed(const std::string& dist_backend, const std::string& device);

// The device of --device `flag`: "cpu"; "cuda" or "sim": the device numbered `local_rank`
// when `distributed` (one per process, as the launcher numbers them), else the first;
// "cuda:N" or "sim:N": that one, for every process; "auto": "cuda" when a GPU is visible,
// else "cpu". Raises brisk::Error naming the flag for a CUDA device that is not there.
Device resolve_device(const std::string& flag, bool distributed, int local_rank);

// Leaves the job (destroy_process_group) when it is distributed.
void finish_distributed(const DistributedRun& run);

// The examples per rank and micro-step of a global batch trained in `accumulate` micro-steps:
// global_batch / (world_size * accumulate). Raises brisk::Error naming the sizes when it does
// not divide evenly.
int64_t per_rank_batch_size(int64_t global_batch, int world_size, int64_t accumulate = 1);

// `local` wrapped in dist::DistributedDataParallel over run.group: its forward is DDP's (the
// backward that follows averages the gradients over the ranks), and its module is the DDP
// module, whose parameters are `local`'s; its no_sync is DDP's (gradient accumulation).
// Checkpoints and evaluation keep using `local`. Without the uneven-input check: the sharded
// loader gives every rank as many batches.
Classifier wrap_ddp(const Classifier& local, const DistributedRun& run);

// Copies rank 0's buffers of `local` (BatchNorm's running statistics) into every rank's, as
// DDP does before each training forward: after an epoch's last step each rank holds the
// statistics of its own last batch, and the evaluation of every rank's test shard should be
// of the model rank 0 saves. Nothing when not distributed or `local` has no buffers.
void broadcast_buffers(const Classifier& local, const DistributedRun& run);

// The sums of every rank's metrics on the host (one all-reduce, on the group's device, then
// one read: MetricSums::read); `metrics`' own when not distributed.
Metrics all_reduce_metrics(const MetricSums& metrics, const DistributedRun& run);

// Rank `rank`'s contiguous share of `dataset` for evaluation: the first size % world_size
// ranks hold one example more, so that the shares cover every example exactly once (no
// padding to count twice). `dataset` itself when not distributed.
std::shared_ptr<const data::Dataset> evaluation_shard(const std::shared_ptr<const data::Dataset>& dataset,
                                                      const DistributedRun& run);

}  // namespace brisk::train
