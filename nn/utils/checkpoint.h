#pragma once
// Activation checkpointing, as torch.utils.checkpoint with use_reentrant=False: a function's
// forward keeps none of the activations its backward needs; backward runs the function
// again to get them back. Memory for compute: the activations inside a checkpointed region
// live only while that region's backward runs.
//
//   // One block:
//   Tensor y = nn::utils::checkpoint([&](const Tensor& x) { return block(x); }, x);
//   // A deep Sequential in 4 segments (the last runs normally, its activations needed first):
//   Tensor out = nn::utils::checkpoint_sequential(*net, 4, x);
//   out.sum().backward();  // the same gradients as without checkpointing
//
// `fn` runs again with the forward's random-number state (dropout draws the same mask), and
// every parameter's gradient (and a DistributedDataParallel hook on it) is produced exactly
// once (docs/guide.md, "Memory").
//
// `fn` must do the same work when run again: the same ops on tensors of the same shapes and
// dtypes (a difference is reported as an error). Its inputs must not be modified in place
// after the forward. Checkpoints inside a checkpointed function are not supported.
#include <functional>

#include "autograd/node.h"
#include "nn/sequential.h"
#include "tensor/tensor.h"

namespace brisk::nn::utils {

using autograd::TensorList;

using CheckpointFunction = std::function<TensorList(const TensorList&)>;

// `fn(inputs)`, recomputed in backward instead of keeping its activations. With
// `preserve_rng_state`, the recomputation draws the same random numbers as the forward
// (dropout masks match); the generator's state after the forward is kept either way.
TensorList checkpoint(const CheckpointFunction& fn, const TensorList& inputs, bool preserve_rng_state = true);
Tensor checkpoint(const std::function<Tensor(const Tensor&)>& fn, const Tensor& input, bool preserve_rng_state = true);

// Runs `modules` on `input` in `segments` consecutive segments of equal size (the last also
// takes the remainder), every segment but the last under checkpoint, as
// torch.utils.checkpoint.checkpoint_sequential.
Tensor checkpoint_sequential(const SequentialImpl& modules, int segments, const Tensor& input,
                             bool preserve_rng_state = true);

}  // namespace brisk::nn::utils
