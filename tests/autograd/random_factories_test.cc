// The public random factories of autograd/ops.h over the native fills (tests/tensor/native/random_test
// checks the draws themselves).
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

TEST_CASE("randint(high, shape) draws from [0, high), as randint(0, high, shape); int64 by default", "[random]") {
  Generator a(21), b(21);
  Tensor from_zero = randint(7, {4, 5}, kInt64, &a);
  CHECK(from_zero.sizes() == Shape{4, 5});
  CHECK(native::equal(from_zero, randint(0, 7, {4, 5}, kInt64, &b)));
  CHECK(randint(-2, 2, {3}).dtype() == kInt64);
  CHECK(randint(0, 2, {3}, kFloat64).dtype() == kFloat64);
  CHECK_FALSE(randint(0, 2, {3}, kFloat64).requires_grad());
}

}  // namespace
}  // namespace brisk
