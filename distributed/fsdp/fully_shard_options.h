#pragma once
// dist::FullyShardOptions: what dist::fully_shard takes besides the module, under the names of
// PyTorch's fully_shard arguments.
#include <memory>

#include "distributed/fsdp/mixed_precision_policy.h"
#include "distributed/process_group.h"
#include "tensor/arg.h"

namespace brisk::dist {

struct FullyShardOptions {
  // The ranks the parameters are sharded over; null: the default group (init_process_group).
  BRISK_ARG(std::shared_ptr<ProcessGroup>, group);
  // true (ZeRO-3): free the gathered parameters after the unit's forward and gather them
  // again for its backward; false: keep them from forward until the unit's backward is done.
  // The root unit keeps them regardless, as PyTorch's: its backward starts right away.
  BRISK_ARG(bool, reshard_after_forward) = true;
  BRISK_ARG(MixedPrecisionPolicy, mp_policy);
  // PyTorch's CPUOffloadPolicy: the shards, their gradients and so the optimizer's step and
  // state live in CPU memory; each all-gather copies the shards to the group's device first and
  // each reduce-scatter's result is copied back. The parameters are given on the group's device.
  BRISK_ARG(bool, cpu_offload) = false;
};

}  // namespace brisk::dist
