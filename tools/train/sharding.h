#pragma once
// What --shard makes of a distributed run's model and optimizer (docs/ddp.md, "Which to pick"):
//   none   DistributedDataParallel and --optimizer's optimizer over every parameter (every rank
//          holds the whole training state); not made here
//   zero1  DistributedDataParallel, the optimizer a dist::ZeroRedundancyOptimizer (its state
//          sharded)
//   zero2  dist::Zero2DataParallel and a dist::Zero2Optimizer (gradients and optimizer state
//          sharded)
//   full   dist::fully_shard on the model's units (models::shard_units) and on the model, the
//          optimizer over the shards (parameters, gradients and optimizer state sharded)
#include <memory>
#include <string>
#include <vector>

#include "distributed/init_distributed.h"
#include "distributed/zero2/zero2_optimizer.h"
#include "nn/module.h"
#include "tools/train/train_options.h"
#include "train/sharded_optimizer.h"

namespace brisk::train {

// The values of --shard, the first the default.
const std::vector<std::string>& shard_modes();

struct ShardedTraining {
  std::shared_ptr<nn::Module> trained;          // what train_epoch trains; its parameters are the model's
  std::unique_ptr<ShardedOptimizer> optimizer;  // over this rank's shard
  dist::Zero2Optimizer* zero2 = nullptr;        // --shard zero2: the one `optimizer` drives
};

// `model` (on run.device) wrapped and given its optimizer as options.shard says; collective.
// Raises brisk::Error for "none" or an unknown mode.
ShardedTraining shard_training(const TrainOptions& options, const std::shared_ptr<nn::Module>& model,
                               const dist::DistributedContext& run);

}  // namespace brisk::train
