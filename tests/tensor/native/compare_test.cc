// equal and allclose, with answers from torch.equal / torch.allclose.
#include <catch2/catch.hpp>

#include <cmath>

#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {
Tensor floats(const std::vector<float>& v) {
  return native::from_vector(v, {static_cast<int64_t>(v.size())}, kFloat32);
}
}  // namespace

TEST_CASE("equal compares shapes and values", "[compare]") {
  Tensor a = floats({1, 2, 3});
  CHECK(native::equal(a, floats({1, 2, 3})));
  CHECK_FALSE(native::equal(a, floats({1, 2, 4})));
  // Values compare after promotion; shapes must match exactly (no broadcasting).
  CHECK(native::equal(a, native::arange(1, 4, 1, kInt64)));
  CHECK_FALSE(native::equal(a, native::view(a, {1, 3})));
  CHECK(native::equal(
      native::transpose(native::view(native::arange(0, 6, 1, kFloat32), {2, 3}), 0, 1),
      native::contiguous(native::transpose(native::view(native::arange(0, 6, 1, kFloat32), {2, 3}), 0, 1))));
  CHECK_FALSE(native::equal(floats({NAN}), floats({NAN})));
  CHECK(native::equal(native::empty({0, 2}), native::empty({0, 2})));
}

TEST_CASE("allclose uses |a - b| <= atol + rtol * |b|", "[compare]") {
  CHECK_FALSE(native::allclose(floats({1, 2}), floats({1 + 1.5e-5f, 2})));
  CHECK(native::allclose(floats({100}), floats({100.001f})));
  CHECK_FALSE(native::allclose(floats({100}), floats({100.002f})));
  CHECK(native::allclose(floats({0}), floats({1e-9f})));
  CHECK_FALSE(native::allclose(floats({0}), floats({1e-7f})));
  CHECK(native::allclose(floats({1}), floats({1.1f}), 0, 0.2));
  // Equal infinities are close; an infinite or NaN difference never is.
  CHECK(native::allclose(floats({INFINITY, -INFINITY}), floats({INFINITY, -INFINITY})));
  CHECK_FALSE(native::allclose(floats({INFINITY}), floats({1})));
  CHECK_FALSE(native::allclose(floats({-INFINITY}), floats({INFINITY})));
  CHECK_FALSE(native::allclose(floats({NAN}), floats({NAN})));
  // Broadcasting, as torch.allclose.
  CHECK(native::allclose(floats({1, 2}), native::expand(floats({1, 2}), {3, 2})));
  CHECK(native::allclose(native::arange(0, 3, 1, kInt64), native::arange(0, 3, 1, kInt64)));
  CHECK_THROWS_WITH(native::allclose(floats({1}), native::ones({1}, kFloat64)),
                    Contains("float32") && Contains("float64"));
}
