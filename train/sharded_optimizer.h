#pragma once
// train::ShardedOptimizer: an optimizer whose state is sharded over the ranks, as train_step
// drives it: dist::ZeroRedundancyOptimizer (ZeRO-1, over a DistributedDataParallel model),
// dist::Zero2Optimizer (ZeRO-2, over a Zero2DataParallel) or a plain optimizer over the shards
// of a dist::fully_shard model (full sharding, where the parameters are sharded too), behind
// one interface so that the loop has one path for every --shard mode:
//
//   std::unique_ptr<train::ShardedOptimizer> sharded = train::sharded(std::move(zero2_optimizer));
//   optim::StepLR scheduler(sharded->local_optimizer(), 10);
//   StepOptions options;
//   options.sharded = sharded.get();
//   train_step(*zero2, sharded->local_optimizer(), batch, options);
//
// Every call but local_optimizer() is collective: every rank makes it, in the same order.
#include <memory>

#include "distributed/zero/zero_redundancy_optimizer.h"
#include "distributed/zero2/zero2_optimizer.h"
#include "nn/module.h"
#include "optim/grad_scaler.h"
#include "optim/optimizer.h"

namespace brisk::train {

class ShardedOptimizer {
 public:
  virtual ~ShardedOptimizer() = default;
  // The optimizer over this rank's shard: LR schedulers attach here.
  virtual optim::Optimizer& local_optimizer() = 0;
  // Clears every gradient, not only the shard's.
  virtual void zero_grad() = 0;
  // The total 2-norm of all ranks' gradients clipped to max_norm (optim::clip_grad_norm_).
  virtual void clip_grad_norm(double max_norm) = 0;
  virtual void unscale(optim::GradScaler& scaler) = 0;
  // The step (through `scaler` when not null: skipped on every rank when a gradient
  // overflowed on any), after which every rank holds every updated parameter.
  virtual void step(optim::GradScaler* scaler) = 0;
  // The state_dict a plain optimizer over the full parameters would have, on rank `to`; an
  // empty state elsewhere.
  virtual optim::OptimizerState consolidated_state_dict(int to) = 0;
  // Every rank loads its part of a plain optimizer's state (a consolidated one).
  virtual void load_state_dict(const optim::OptimizerState& state) = 0;

  // Whether the model's parameters are sharded too (its state_dict holds this rank's shards).
  virtual bool shards_parameters() const = 0;
  // `model`'s state_dict as the unsharded model has it, on rank `to` (other ranks may get an
  // empty one): gathered from the shards under full sharding, else the model's own.
  virtual nn::StateDict full_model_state_dict(nn::Module& model, int to) = 0;
  // Every rank loads an unsharded model's state_dict: its rows into the shards under full
  // sharding, else the whole of it.
  virtual void load_full_model_state_dict(nn::Module& model, const nn::StateDict& state) = 0;
};

std::unique_ptr<ShardedOptimizer> sharded(std::unique_ptr<dist::ZeroRedundancyOptimizer> optimizer);
std::unique_ptr<ShardedOptimizer> sharded(std::unique_ptr<dist::Zero2Optimizer> optimizer);
// Full sharding: `model` the root of dist::fully_shard units, `optimizer` over its parameters
// (the shards). Clipping is dist::clip_grad_norm_'s; GradScaler's found-inf flags are agreed
// over the units' group; the state dicts are gathered from and cut into the shards
// (distributed/fsdp/full_state_dict.h). `model` must outlive the result.
std::unique_ptr<ShardedOptimizer> fully_sharded(nn::Module& model, std::unique_ptr<optim::Optimizer> optimizer);

}  // namespace brisk::train
