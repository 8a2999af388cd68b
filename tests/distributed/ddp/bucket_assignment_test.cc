// compute_bucket_assignment: caps in bytes, the smaller first bucket, one bucket per dtype and
// device, ordering by readiness, and argument errors.
#include <catch2/catch.hpp>

#include "distributed/ddp/bucket_assignment.h"

namespace brisk::dist {
namespace {

using Buckets = std::vector<std::vector<size_t>>;
using Catch::Matchers::Contains;

std::vector<BucketEntry> floats(std::vector<int64_t> numels) {
  std::vector<BucketEntry> entries;
  for (int64_t n : numels) entries.push_back({n, kFloat32, kCPU});
  return entries;
}

TEST_CASE("buckets close once they reach the cap, the first at its own smaller cap") {
  // 400, 800, 1200, 1600 bytes taken in reverse: 1600 >= 800 closes the first bucket alone,
  // then 1200 + 800 reaches 2000, then 400 is left over.
  auto entries = floats({100, 200, 300, 400});
  CHECK(compute_bucket_assignment(entries, {3, 2, 1, 0}, {800, 2000}) == Buckets{{3}, {2, 1}, {0}});
  // One large cap: everything fits in one bucket.
  CHECK(compute_bucket_assignment(entries, {3, 2, 1, 0}, {1 << 20}) == Buckets{{3, 2, 1, 0}});
  // A tiny cap: one bucket per gradient, in the given order.
  CHECK(compute_bucket_assignment(entries, {1, 3, 0, 2}, {1}) == Buckets{{1}, {3}, {0}, {2}});
}

TEST_CASE("gradients of different dtypes or devices never share a bucket") {
  std::vector<BucketEntry> entries{
      {10, kFloat32, kCPU}, {10, kFloat64, kCPU}, {10, kFloat32, kCPU}, {10, kFloat32, cuda_device(0)}};
  // Buckets are ordered by their first gradient's position in the order: 3, 2, 1.
  CHECK(compute_bucket_assignment(entries, {3, 2, 1, 0}, {1 << 20}) == Buckets{{3}, {2, 0}, {1}});
}

TEST_CASE("the size limits advance per bucket and the last one repeats") {
  auto entries = floats({1, 1, 1, 1, 1, 1, 1});  // 4 bytes each
  CHECK(compute_bucket_assignment(entries, {0, 1, 2, 3, 4, 5, 6}, {4, 8}) == Buckets{{0}, {1, 2}, {3, 4}, {5, 6}});
}

TEST_CASE("compute_bucket_assignment rejects a bad order") {
  auto entries = floats({1, 2, 3});
  CHECK_THROWS_WITH(compute_bucket_assignment(entries, {0, 1}, {8}), Contains("order lists 2 indices for 3 entries"));
  CHECK_THROWS_WITH(compute_bucket_assignment(entries, {0, 1, 1}, {8}), Contains("repeated index 1"));
  CHECK_THROWS_WITH(compute_bucket_assignment(entries, {0, 1, 2}, {}), Contains("no bucket size limit"));
}

}  // namespace
}  // namespace brisk::dist
