#pragma once
// What a training program changes when it runs as one of several processes started by the
// launcher (tools/launch, docs/launch.md), besides what dist::init_distributed sets up (the device, the
// process group on it): the DDP-wrapped model, the per-rank batch, the metrics summed over
// the ranks and the evaluation shards.
//
//   dist::DistributedContext run = dist::init_distributed(...device(options.device));
//   model->to(run.device);
//   auto ddp = run.enabled ? wrap_ddp(model, run) : nullptr;           // all-reduces gradients
//   nn::Module& trained = ddp ? *ddp : *model;                         // what train_epoch trains
//   Metrics global = all_reduce_metrics(local_sums, run);              // identical on every rank
//   dist::finish_distributed(run);
//
// Every collective of the run takes tensors on run.group->device(), which is run.device: the
// group is made for the training device whatever the backend (Gloo stages a device's
// tensors through host memory, NCCL takes CUDA tensors only).
#include <cstdint>
#include <memory>

#include "data/dataset.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/init_distributed.h"
#include "train/train_loop.h"

namespace brisk::train {

// The examples per rank and micro-step of a global batch trained in `accumulate` micro-steps:
// global_batch / (world_size * accumulate). Raises brisk::Error naming the sizes when it does
// not divide evenly.
int64_t per_rank_batch_size(int64_t global_batch, int world_size, int64_t accumulate = 1);

// `model` wrapped in dist::DistributedDataParallel over run.group: its forward is the
// model's, and the backward that follows averages the gradients over the ranks; its
// parameters are `model`'s. Checkpoints and evaluation keep using `model`. Without the
// uneven-input check: the sharded loader gives every rank as many batches.
std::shared_ptr<dist::DistributedDataParallelBase> wrap_ddp(const std::shared_ptr<nn::Module>& model,
                                                            const dist::DistributedContext& run);

// Copies rank 0's buffers of `model` (BatchNorm's running statistics) into every rank's, as
// DDP does before each training forward: after an epoch's last step each rank holds the
// statistics of its own last batch, and the evaluation of every rank's test shard should be
// of the model rank 0 saves. Nothing when not distributed or `model` has no buffers.
void broadcast_buffers(const nn::Module& model, const dist::DistributedContext& run);

// The sums of every rank's metrics on the host (one all-reduce, on the group's device, then
// one read: MetricSums::read); `metrics`' own when not distributed.
Metrics all_reduce_metrics(const MetricSums& metrics, const dist::DistributedContext& run);

// Raises brisk::Error naming every rank and its step when the ranks do not all resume from the
// same point (`step`: this rank's resumed checkpoint's Progress::step, -1 for a fresh start),
// as when --resume auto finds different newest checkpoints on different ranks. Nothing when
// not distributed.
void check_same_resume_step(int64_t step, const dist::DistributedContext& run);

// Rank `rank`'s contiguous share of `dataset` for evaluation: the first size % world_size
// ranks hold one example more, so that the shares cover every example exactly once (no
// padding to count twice). `dataset` itself when not distributed.
std::shared_ptr<const data::Dataset> evaluation_shard(const std::shared_ptr<const data::Dataset>& dataset,
                                                      const dist::DistributedContext& run);

}  // namespace brisk::train
