#pragma once
// What train_mnist changes when it runs as one of several processes started by the launcher
// (tools/launch, docs/launch.md): the process group, the device, the DDP-wrapped model, and
// the metrics summed over the ranks.
//
//   DistributedRun run = start_distributed(options.dist_backend, options.device);
//   Classifier trained = run.enabled ? wrap_ddp(local, run) : local;   // all-reduces gradients
//   Metrics global = all_reduce_metrics(local_metrics, run);           // identical on every rank
//   finish_distributed(run);
#include <cstdint>
#include <memory>
#include <string>

#include "data/tensor_dataset.h"
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
  std::string backend;  // "gloo" or "nccl" when enabled
  Device device = kCPU;
  std::shared_ptr<dist::ProcessGroup> group;

  bool is_main() const { return rank == 0; }
};

// Decides whether this run is distributed and joins the job when it is. `dist_backend` is
// --dist-backend: "" (not given) means distributed exactly when WORLD_SIZE > 1; "auto",
// "gloo" or "nccl" force it (auto: nccl when `device` resolves to CUDA, gloo otherwise).
// `device` is --device ("auto", "cpu", "cuda"); a distributed CUDA run takes GPU LOCAL_RANK
// and makes it current. Joins through init_process_group("env://"), whose errors (no RANK,
// an unreachable MASTER_ADDR) name what is missing.
DistributedRun start_distributed(const std::string& dist_backend, const std::string& device);

// Leaves the job (destroy_process_group) when it is distributed.
void finish_distributed(const DistributedRun& run);

// The examples per rank and step of a global batch: global_batch / world_size. Raises
// brisk::Error naming both sizes when it does not divide evenly.
int64_t per_rank_batch_size(int64_t global_batch, int world_size);

// `local` wrapped in dist::DistributedDataParallel over run.group: its forward is DDP's (the
// backward that follows averages the gradients over the ranks), and its module is the DDP
// module, whose parameters are `local`'s. Checkpoints and evaluation keep using `local`.
Classifier wrap_ddp(const Classifier& local, const DistributedRun& run);

// The sums of every rank's metrics (one all-reduce); `metrics` itself when not distributed.
Metrics all_reduce_metrics(const Metrics& metrics, const DistributedRun& run);

// Rank `rank`'s contiguous share of `dataset` for evaluation: the first size % world_size
// ranks hold one example more, so that the shares cover every example exactly once (no
// padding to count twice). `dataset` itself when not distributed.
std::shared_ptr<data::TensorDataset> evaluation_shard(const std::shared_ptr<data::TensorDataset>& dataset,
                                                      const DistributedRun& run);

}  // namespace brisk::train
