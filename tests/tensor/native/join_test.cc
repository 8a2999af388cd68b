// cat, stack and split, with expected values from PyTorch.
#include <catch2/catch.hpp>

#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {
Tensor ints(int64_t n, const Shape& shape) { return native::view(native::arange(0, n, 1, kInt64), shape); }
}  // namespace

TEST_CASE("cat promotes dtypes and joins along a dim", "[join]") {
  Tensor a = ints(6, {2, 3});
  Tensor b = native::from_vector(std::vector<float>{0, 0.5f, 1, 1.5f}, {2, 2}, kFloat32);
  Tensor r = native::cat({a, b}, 1);
  CHECK(r.dtype() == kFloat32);
  CHECK(r.sizes() == Shape{2, 5});
  CHECK(r.to_vector<float>() == std::vector<float>{0, 1, 2, 0, 0.5f, 3, 4, 5, 1, 1.5f});

  Tensor rows = native::cat({a, native::transpose(ints(6, {3, 2}), 0, 1), a}, -2);
  CHECK(rows.sizes() == Shape{6, 3});
  CHECK(native::select(rows, 0, 2).to_vector<int64_t>() == std::vector<int64_t>{0, 2, 4});

  // Legacy rule: 1-D empty tensors are skipped whatever the other shapes.
  Tensor skipped = native::cat({native::empty({0}), a}, 0);
  CHECK(skipped.sizes() == Shape{2, 3});
  CHECK(skipped.dtype() == kFloat32);
  CHECK(native::cat({native::empty({0}, kInt64)}, 0).sizes() == Shape{0});
}

TEST_CASE("cat errors name the mismatching input and dim", "[join]") {
  CHECK_THROWS_WITH(native::cat({native::zeros({2, 3}), native::zeros({3, 3})}, 1),
                    Contains("except in dim 1") && Contains("tensor 1") && Contains("in dim 0"));
  CHECK_THROWS_WITH(native::cat({native::zeros({2, 3}), native::zeros({2, 3, 1})}, 0),
                    Contains("same number of dims") && Contains("[2, 3, 1]"));
  CHECK_THROWS_WITH(native::cat({native::zeros({2}), native::scalar_tensor(1.0, kFloat32)}, 0),
                    Contains("zero-dimensional") && Contains("position 1"));
  CHECK_THROWS_WITH(native::cat({}, 0), Contains("non-empty"));
  CHECK_THROWS_WITH(native::cat({native::zeros({2})}, 1), Contains("cat") && Contains("dim 1"));
}

TEST_CASE("stack inserts a new dim", "[join]") {
  Tensor a = ints(6, {2, 3});
  Tensor s = native::stack({a, native::binary(BinaryOp::Mul, a, Scalar(10))}, 1);
  CHECK(s.sizes() == Shape{2, 2, 3});
  CHECK(s.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 0, 10, 20, 3, 4, 5, 30, 40, 50});
  CHECK(native::stack({a, a}, -1).sizes() == Shape{2, 3, 2});
  CHECK_THROWS_WITH(native::stack({a, ints(6, {3, 2})}, 0), Contains("[2, 3] at entry 0 and [3, 2] at entry 1"));
}

TEST_CASE("split returns views that cover the dim", "[join]") {
  Tensor t = ints(10, {5, 2});
  std::vector<Tensor> parts = native::split(t, {2, 0, 3}, 0);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].sizes() == Shape{2, 2});
  CHECK(parts[1].sizes() == Shape{0, 2});
  CHECK(parts[2].offset() == 4);
  CHECK(parts[2].storage() == t.storage());
  CHECK(parts[2].to_vector<int64_t>() == std::vector<int64_t>{4, 5, 6, 7, 8, 9});
  CHECK(native::split(t, {1, 1}, -1)[1].to_vector<int64_t>() == std::vector<int64_t>{1, 3, 5, 7, 9});
  CHECK_THROWS_WITH(native::split(t, {2, 2}, 0), Contains("[2, 2]") && Contains("sum to 4") && Contains("size 5"));
}
