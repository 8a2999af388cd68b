#pragma once
// Options of DistributedDataParallel, as the keyword arguments of
// torch.nn.parallel.DistributedDataParallel:
//
//   auto options = dist::DistributedDataParallelOptions().bucket_cap_mb(25).find_unused_parameters(true);
#include "tensor/arg.h"

namespace brisk::dist {

struct DistributedDataParallelOptions {
  // Gradients are packed into buckets of about this many MiB (a bucket closes once it
  // reaches the cap); each bucket is all-reduced as soon as all of its gradients are ready.
  BRISK_ARG(double, bucket_cap_mb) = 25.0;
  // The first bucket to become ready is smaller, so communication starts early in backward.
  BRISK_ARG(double, first_bucket_cap_mb) = 1.0;
  // Traverse the autograd graph after each forward and mark the parameters it does not
  // reach as ready, so models that use a different subset of parameters per iteration work.
  // Without it, a parameter that receives no gradient is an error naming it.
  BRISK_ARG(bool, find_unused_parameters) = false;
  // Broadcast rank 0's buffers (BatchNorm statistics) before each synchronizing forward.
  BRISK_ARG(bool, broadcast_buffers) = true;
  // Rebuild the buckets once, after the first synchronizing backward, in the order the
  // gradients actually became ready there.
  BRISK_ARG(bool, rebuild_buckets) = true;
  // After each synchronizing backward, every parameter's .grad is a view into its bucket's
  // buffer instead of a copy of it: the averaged gradients are not copied back after the
  // all-reduce, which is time backward cannot hide, and no second copy of the gradients is
  // kept. The next backward overwrites the buffer, so a .grad kept across steps changes.
  BRISK_ARG(bool, gradient_as_bucket_view) = false;
  // Each training forward exchanges a flag per rank so that a rank that ran out of inputs
  // (and called join()) is reported by name on every rank instead of leaving the others
  // waiting in a collective.
  BRISK_ARG(bool, check_uneven_inputs) = true;
};

}  // namespace brisk::dist
