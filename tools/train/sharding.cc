#include "tools/train/sharding.h"

#include "distributed/fsdp/fully_shard.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/registry.h"
#include "tensor/error.h"
#include "tools/train/optimization.h"
#include "train/distributed_run.h"

namespace brisk::train {

const std::vector<std::string>& shard_modes() {
  static const std::vector<std::string> modes{"none", "zero1", "zero2", "full"};
  return modes;
}

ShardedTraining shard_training(const TrainOptions& options, const std::shared_ptr<nn::Module>& model,
                               const dist::DistributedContext& run) {
  auto factory = [&options](std::vector<Tensor> params) { return make_optimizer(options, params); };
  ShardedTraining out;
  if (options.shard == "zero1") {
    std::shared_ptr<dist::DistributedDataParallelBase> ddp = wrap_ddp(model, run);
    out.optimizer = sharded(std::make_unique<dist::ZeroRedundancyOptimizer>(ddp->parameters(), factory, run.group));
    out.trained = ddp;
  } else if (options.shard == "zero2") {
    auto zero2 = std::make_shared<dist::Zero2DataParallelImpl<std::shared_ptr<nn::Module>>>(model, run.group);
    auto optimizer = std::make_unique<dist::Zero2Optimizer>(*zero2, factory);
    out.zero2 = optimizer.get();
    out.optimizer = sharded(std::move(optimizer));
    out.trained = zero2;
  } else if (options.shard == "full") {
    const auto shard_options = dist::FullyShardOptions().group(run.group);
    for (const std::shared_ptr<nn::Module>& unit : models::shard_units(options.model, *model)) {
      dist::fully_shard(*unit, shard_options);
    }
    dist::fully_shard(*model, shard_options);
    out.optimizer = fully_sharded(*model, make_optimizer(options, model->parameters()));
    out.trained = model;
  } else {
    BRISK_FAIL("shard_training: --shard {} does not shard the training state", options.shard);
  }
  return out;
}

}  // namespace brisk::train
