#include "distributed/ddp/bucket_assignment.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "tensor/error.h"

namespace brisk::dist {

namespace {

struct OpenBucket {
  std::vector<size_t> indices;
  int64_t bytes = 0;
  size_t limit_index = 0;
};

}  // namespace

std::vector<std::vector<size_t>> compute_bucket_assignment(const std::vector<BucketEntry>& entries,
                                                           const std::vector<size_t>& order,
                                                           const std::vector<int64_t>& size_limits) {
  BRISK_CHECK(!size_limits.empty(), "compute_bucket_assignment: no bucket size limit given");
  BRISK_CHECK(order.size() == entries.size(), "compute_bucket_assignment: order lists {} indices for {} entries",
              order.size(), entries.size());
  std::vector<bool> seen(entries.size(), false);
  // Keyed by (dtype, device type, device index): one open bucket per kind of gradient.
  std::map<std::tuple<int, int, int>, OpenBucket> open;
  std::vector<std::vector<size_t>> buckets;
  auto close = [&](OpenBucket& bucket) {
    buckets.push_back(std::move(bucket.indices));
    bucket.indices.clear();
    bucket.bytes = 0;
    bucket.limit_index = std::min(bucket.limit_index + 1, size_limits.size() - 1);
  };
  for (size_t index : order) {
    BRISK_CHECK(index < entries.size() && !seen[index],
                "compute_bucket_assignment: order must list each of the {} entries once (bad or repeated index {})",
                entries.size(), index);
    seen[index] = true;
    const BucketEntry& entry = entries[index];
    auto key = std::make_tuple(static_cast<int>(entry.dtype), static_cast<int>(entry.device.type), entry.device.index);
    OpenBucket& bucket = open[key];
    bucket.indices.push_back(index);
    bucket.bytes += entry.numel * static_cast<int64_t>(element_size(entry.dtype));
    if (bucket.bytes >= size_limits[bucket.limit_index]) close(bucket);
  }
  for (auto& [key, bucket] : open) {
    if (!bucket.indices.empty()) close(bucket);
  }
  std::vector<size_t> position(entries.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::stable_sort(buckets.begin(), buckets.end(),
                   [&](const auto& a, const auto& b) { return position[a.front()] < position[b.front()]; });
  return buckets;
}

}  // namespace brisk::dist
