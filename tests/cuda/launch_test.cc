// for_each_launch_piece (cuda/launch.cc), the host side of every strided CUDA launch: it must
// cover every element exactly once with pieces the device can index (at most kMaxLaunchDims
// dims and 2^31 - 1 elements). Host code only: runs without a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "cuda/launch.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

// The address of every element of a LoopShape's first operand, in its loop order.
void collect(const iter::LoopShape& s, std::vector<const char*>& out) {
  std::vector<int64_t> index(s.ndim, 0);
  for (int64_t n = 0; n < s.numel; ++n) {
    const char* p = s.data[0];
    for (int d = 0; d < s.ndim; ++d) p += index[d] * s.strides[0][d];
    out.push_back(p);
    for (int d = 0; d < s.ndim && ++index[d] == s.sizes[d]; ++d) index[d] = 0;
  }
}

std::vector<iter::LoopShape> pieces_of(const iter::LoopShape& s) {
  std::vector<iter::LoopShape> pieces;
  cuda::for_each_launch_piece(
      s,
      [](const iter::LoopShape& piece, void* context) {
        static_cast<std::vector<iter::LoopShape>*>(context)->push_back(piece);
      },
      &pieces);
  return pieces;
}

TEST_CASE("a shape within the limits is one piece") {
  Tensor t = native::empty({3, 5, 7}, kFloat32);
  iter::LoopShape s = iter::make_loop_shape({&t}, "test");
  std::vector<iter::LoopShape> pieces = pieces_of(s);
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0].numel == 105);
}

TEST_CASE("dims beyond the limit are peeled off, covering every element once") {
  // Ten dims of size 2 that cannot merge: every other element of a [4, ..., 4] tensor.
  Tensor base = native::empty(Shape(10, 4), kUInt8);
  Tensor t = base;
  for (int64_t d = 0; d < 10; ++d) t = native::slice(t, d, 0, std::nullopt, 2);
  iter::LoopShape s = iter::make_loop_shape({&t}, "test");
  REQUIRE(s.ndim == 10);
  std::vector<iter::LoopShape> pieces = pieces_of(s);
  CHECK(pieces.size() == 4);
  std::vector<const char*> want, got;
  collect(s, want);
  for (const iter::LoopShape& p : pieces) {
    CHECK(p.ndim <= cuda::kMaxLaunchDims);
    collect(p, got);
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  CHECK(got == want);
}

TEST_CASE("more than 2^31 - 1 elements are split into pieces the device indexes in 32 bits") {
  // A broadcast view: 3 * 2^30 elements over one float of memory.
  Tensor one = native::empty({1, 1}, kFloat32);
  Tensor wide = native::expand(one, {3, int64_t{1} << 30});
  Tensor column = native::empty({3, 1}, kFloat32);
  Tensor rows = native::expand(column, {3, int64_t{1} << 30});
  iter::LoopShape s = iter::make_loop_shape({&rows, &wide}, "test");
  std::vector<iter::LoopShape> pieces = pieces_of(s);
  REQUIRE(pieces.size() > 1);
  int64_t total = 0;
  for (const iter::LoopShape& p : pieces) {
    CHECK(p.numel <= cuda::kMaxLaunchElements);
    CHECK(p.numel > 0);
    total += p.numel;
  }
  CHECK(total == s.numel);
  // Every piece starts inside the first operand's three rows.
  for (const iter::LoopShape& p : pieces) {
    auto offset = p.data[0] - static_cast<const char*>(column.raw_data());
    CHECK(offset >= 0);
    CHECK(offset < 3 * 4);
  }
}

}  // namespace
}  // namespace brisk
