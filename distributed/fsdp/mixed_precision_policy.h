#pragma once
// dist::MixedPrecisionPolicy: the dtypes fully_shard computes and reduces in, as PyTorch's
// torch.distributed.fsdp.MixedPrecisionPolicy. The shards (what the optimizer steps) keep
// their own dtype, float32 typically:
//
//   fully_shard(model, FullyShardOptions().mp_policy({kBFloat16, kFloat32}));
//
// forward and backward then run on bfloat16 parameters gathered from float32 shards, and the
// gradients are reduce-scattered in float32.
#include <optional>

#include "tensor/dtype.h"

namespace brisk::dist {

struct MixedPrecisionPolicy {
  // The dtype of the gathered parameters forward and backward compute with; none: the shards'.
  std::optional<DType> param_dtype;
  // The dtype gradients are reduce-scattered in; none: param_dtype (or the shards' without it).
  std::optional<DType> reduce_dtype;
};

}  // namespace brisk::dist
