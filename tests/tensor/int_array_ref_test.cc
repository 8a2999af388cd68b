// IntArrayRef: one value, a braced list, a vector, or nothing.
#include <catch2/catch.hpp>

#include <vector>

#include "tensor/int_array_ref.h"

namespace brisk {
namespace {

std::vector<int64_t> seen(IntArrayRef dims) { return dims.vec(); }

TEST_CASE("IntArrayRef views one value, a braced list or a vector", "[int_array_ref]") {
  CHECK(seen(1) == std::vector<int64_t>{1});
  CHECK(seen({1}) == std::vector<int64_t>{1});
  CHECK(seen({0, -1}) == std::vector<int64_t>{0, -1});
  CHECK(seen({}).empty());
  CHECK(seen(IntArrayRef()).empty());
  std::vector<int64_t> dims{2, 3, 4};
  IntArrayRef ref = dims;
  CHECK(ref.data() == dims.data());
  CHECK(ref.size() == 3);
  CHECK(ref[1] == 3);
  int64_t total = 0;
  for (int64_t d : ref) total += d;
  CHECK(total == 9);
  CHECK_FALSE(ref.empty());
}

}  // namespace
}  // namespace brisk
