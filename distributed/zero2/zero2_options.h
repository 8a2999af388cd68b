#pragma once
// Options of dist::Zero2DataParallel, named as DistributedDataParallel's:
//
//   auto options = dist::Zero2Options().bucket_cap_mb(50);
#include "tensor/arg.h"

namespace brisk::dist {

struct Zero2Options {
  // Parameters are grouped into buckets of about this many MiB of gradient (a bucket closes
  // once it reaches the cap), in reverse parameter order; each bucket's gradients are
  // reduce-scattered as soon as all of them are ready, and its parameters all-gathered
  // together after the optimizer step.
  BRISK_ARG(double, bucket_cap_mb) = 25.0;
  // The first bucket to become ready is smaller, so communication starts early in backward.
  BRISK_ARG(double, first_bucket_cap_mb) = 1.0;
  // Broadcast rank 0's buffers (BatchNorm statistics) before each synchronizing forward.
  BRISK_ARG(bool, broadcast_buffers) = true;
};

}  // namespace brisk::dist
