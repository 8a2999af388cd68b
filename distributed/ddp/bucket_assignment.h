#pragma once
// How DistributedDataParallel groups gradients into buckets (PyTorch's
// compute_bucket_assignment_by_size). Plain bookkeeping, independent of tensors and
// communication, so it is unit-tested on its own.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"

namespace brisk::dist {

// What bucketing needs to know of one gradient.
struct BucketEntry {
  int64_t numel = 0;
  DType dtype = kFloat32;
  Device device = kCPU;
};

// Packs entries into buckets, taking them in `order` (indices into `entries`; every index
// exactly once). Entries of one dtype and device share a bucket; each kind fills its own open
// bucket, which closes once it holds at least the current size limit in bytes. The first
// bucket of a kind closes at size_limits[0], the next at size_limits[1], and so on, the last
// limit repeating. Returns the buckets as lists of entry indices, ordered by the position in
// `order` of their first entry: the order in which they become ready when gradients arrive
// in `order`.
std::vector<std::vector<size_t>> compute_bucket_assignment(const std::vector<BucketEntry>& entries,
                                                           const std::vector<size_t>& order,
                                                           const std::vector<int64_t>& size_limits);

}  // namespace brisk::dist
