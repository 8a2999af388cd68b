#pragma once
// dist::all_gather_with_grad: an all_gather that autograd differentiates, as
// torch.distributed.nn.functional.all_gather. What SyncBatchNorm exchanges its statistics
// with.
//
//   Tensor every = dist::all_gather_with_grad(stats, group);   // [world, *stats.shape]
//   loss(every).backward();   // on every rank: stats.grad = the sum over ranks of their
//                             // gradients for this rank's slice
//
// The backward is itself a collective (a reduce_scatter, whose own backward is this
// all_gather again, so create_graph works): every rank of the group must run it, in the same
// order relative to its other collectives, as with any collective.
#include "distributed/distributed.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// input: on the group's device (any layout; it is made contiguous). group nullptr: the
// default group. Blocks until the gather is done (on NCCL: until it is enqueued).
Tensor all_gather_with_grad(const Tensor& input, const GroupPtr& group = nullptr);

}  // namespace brisk::dist
