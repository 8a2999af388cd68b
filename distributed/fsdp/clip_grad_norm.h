#pragma once
// dist::clip_grad_norm_: torch.nn.utils.clip_grad_norm_ for a fully sharded model, computed
// from the gradient shards. Call between backward() and the optimizer's step():
//
//   loss.backward();
//   dist::clip_grad_norm_(*model, 1.0);  // model: the root of fully_shard units
//   opt.step();
#include "nn/module.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// Collective over the units' group (every unit of `model`'s tree must share it). The total
// norm_type-norm (2, 1, inf, any p > 0) of all ranks' gradient shards (each rank's sum of
// |g|^p, or its max |g| for inf, all-reduced), which is the norm of the full gradients; every
// shard is then scaled by min(1, max_norm / (total + 1e-6)), as optim::clip_grad_norm_ does
// unsharded. Returns the total norm, a float64 0-dim tensor on the group's device. With
// error_if_nonfinite, a NaN or infinite norm throws on every rank.
Tensor clip_grad_norm_(nn::Module& model, double max_norm, double norm_type = 2.0, bool error_if_nonfinite = false);

}  // namespace brisk::dist
