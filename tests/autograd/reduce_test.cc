// The reductions take their dims as libtorch does (IntArrayRef): one int, a braced list, a vector
// or nothing for all dims, with the same meaning as the vector form that the fixtures check.
#include <catch2/catch.hpp>

#include "autograd/ops.h"

namespace brisk {
namespace {

Tensor sample() { return arange(24, kFloat64).reshape({2, 3, 4}).sin(); }

TEST_CASE("reductions take one int dim as libtorch", "[reduce]") {
  Tensor x = sample();
  const std::vector<int64_t> dim1{1};
  CHECK(equal(x.sum(1), x.sum(dim1)));
  CHECK(equal(x.sum(1, true), x.sum(dim1, true)));
  CHECK(x.sum(1, true).sizes() == Shape{2, 1, 4});
  CHECK(equal(x.mean(1), x.mean(dim1)));
  CHECK(equal(x.mean(-1), x.mean(std::vector<int64_t>{2})));
  CHECK(equal(x.prod(1), x.prod(dim1)));
  CHECK(equal(x.amax(1), x.amax(dim1)));
  CHECK(equal(x.amin(1, true), x.amin(dim1, true)));
  CHECK(equal(x.var(1), x.var(dim1)));
  CHECK(equal(x.std(1, 0), x.std(dim1, 0)));
  CHECK(equal(x.logsumexp(1), x.logsumexp(dim1)));
  CHECK(equal(x.norm(2, 1), x.norm(2, dim1)));
  CHECK(equal(sum(x, 1, true), sum(x, dim1, true)));
  CHECK(equal(mean(x, 1), mean(x, dim1)));
  CHECK(equal(brisk::std(x, 1), brisk::std(x, dim1)));
  CHECK(equal(logsumexp(x, 1), logsumexp(x, dim1)));
}

TEST_CASE("reductions take a braced list of dims, and none or {} for all dims", "[reduce]") {
  Tensor x = sample();
  const std::vector<int64_t> dims01{0, 1}, all;
  CHECK(equal(x.sum({0, 1}), x.sum(dims01)));
  CHECK(x.sum({0, 1}).sizes() == Shape{4});
  CHECK(equal(x.sum({1}), x.sum(1)));
  CHECK(x.sum({}).dim() == 0);
  CHECK(equal(x.sum({}), x.sum(all)));
  CHECK(equal(x.sum(), x.sum(all)));
  CHECK(equal(x.mean(), x.mean({0, 1, 2})));
  CHECK(equal(x.amax({}, true), x.amax(all, true)));
  CHECK(equal(x.var({0, 2}, 0, true), x.var(std::vector<int64_t>{0, 2}, 0, true)));
  CHECK(equal(norm(x, 1.0, {0, 2}), norm(x, 1.0, std::vector<int64_t>{0, 2})));
}

TEST_CASE("an int dim out of range names the op and the dim", "[reduce]") {
  Tensor x = sample();
  CHECK_THROWS_WITH(x.sum(3), Catch::Contains("sum") && Catch::Contains("3"));
  CHECK_THROWS_WITH(x.mean({0, 0}), Catch::Contains("mean"));
}

}  // namespace
}  // namespace brisk
