// index_select, gather, scatter_add and one_hot, with expected values from PyTorch.
#include <catch2/catch.hpp>

#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {
Tensor longs(const std::vector<int64_t>& v, const Shape& shape) { return native::from_vector(v, shape, kInt64); }
Tensor grid() { return native::view(native::arange(0, 12, 1, kFloat32), {3, 4}); }  // arange(12.).view(3, 4)
}  // namespace

TEST_CASE("index_select picks slices", "[index]") {
  Tensor x = grid();
  Tensor cols = native::index_select(x, 1, longs({3, 0, 3}, {3}));
  CHECK(cols.sizes() == Shape{3, 3});
  CHECK(cols.to_vector<float>() == std::vector<float>{3, 0, 3, 7, 4, 7, 11, 8, 11});
  Tensor rows = native::index_select(native::transpose(x, 0, 1), 0, longs({1}, {}));
  CHECK(rows.sizes() == Shape{1, 3});
  CHECK(rows.to_vector<float>() == std::vector<float>{1, 5, 9});
  CHECK(native::index_select(x, 0, longs({}, {0})).sizes() == Shape{0, 4});
  CHECK_THROWS_WITH(native::index_select(x, 1, longs({0, 4}, {2})),
                    "index_select: index 4 is out of bounds for dim 1 with size 4");
  CHECK_THROWS_WITH(native::index_select(x, 0, native::zeros({1}, kInt32)), Contains("int64") && Contains("int32"));
}

TEST_CASE("gather reads along a dim", "[index]") {
  Tensor out = native::gather(grid(), 1, longs({0, 0, 1, 0, 3, 2}, {3, 2}));
  CHECK(out.to_vector<float>() == std::vector<float>{0, 0, 5, 4, 11, 10});
  // A strided input and an index smaller than it in the other dim.
  Tensor t = native::gather(native::transpose(grid(), 0, 1), 0, longs({2, 0}, {1, 2}));
  CHECK(t.to_vector<float>() == std::vector<float>{2, 4});
  CHECK_THROWS_WITH(native::gather(grid(), 0, longs({3}, {1, 1})),
                    "gather: index 3 is out of bounds for dim 0 with size 3");
  CHECK_THROWS_WITH(native::gather(grid(), 0, longs({0}, {1})), Contains("gather") && Contains("dims"));
  CHECK_THROWS_WITH(native::gather(grid(), 0, longs({0, 0, 0, 0, 0}, {1, 5})), Contains("in dim 1"));
}

TEST_CASE("scatter_add accumulates repeated indices", "[index]") {
  Tensor src = native::view(native::arange(0, 9, 1, kFloat32), {3, 3});
  Tensor out = native::scatter_add(native::zeros({3, 5}), 1, longs({0, 1, 0, 4, 4, 4, 2, 3, 2}, {3, 3}), src);
  CHECK(out.to_vector<float>() == std::vector<float>{2, 1, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 14, 7, 0});

  Tensor v = native::zeros({4});
  native::scatter_add_(v, 0, longs({1, 1, 3, 1}, {4}),
                       native::from_vector(std::vector<float>{1, 2, 3, 4}, {4}, kFloat32));
  CHECK(v.to_vector<float>() == std::vector<float>{0, 7, 0, 3});

  // A bad index is reported before anything is written.
  Tensor keep = native::ones({4});
  CHECK_THROWS_WITH(native::scatter_add_(keep, 0, longs({0, -1}, {2}), native::ones({2})),
                    "scatter_add: index -1 is out of bounds for dim 0 with size 4");
  CHECK(keep.to_vector<float>() == std::vector<float>(4, 1.0f));
  CHECK_THROWS_WITH(native::scatter_add_(keep, 0, longs({0}, {1}), native::ones({1}, kFloat64)),
                    Contains("float64") && Contains("float32"));
}

TEST_CASE("0-dim operands count as 1-element 1-D ones", "[index]") {
  // torch.zeros(()).scatter_add(0, tensor([0]), tensor([1.])) == tensor(1.)
  Tensor s = native::scatter_add(native::zeros({}), 0, longs({0}, {1}), native::ones({1}));
  CHECK(s.dim() == 0);
  CHECK(s.item<float>() == 1.0f);
  CHECK(native::scatter_add(native::zeros({}), 0, longs({0}, {}), native::full({}, 2.0, kFloat32)).item<float>() ==
        2.0f);
  // torch.zeros(3).gather(0, tensor(1)) is 0-dim; torch.zeros(()).gather(0, tensor([0, 0])) has 2 elements.
  CHECK(native::gather(native::arange(0, 3, 1, kFloat32), 0, longs({1}, {})).dim() == 0);
  CHECK(native::gather(native::arange(0, 3, 1, kFloat32), 0, longs({2}, {})).item<float>() == 2.0f);
  CHECK(native::gather(native::full({}, 5.0, kFloat32), 0, longs({0, 0}, {2})).to_vector<float>() ==
        std::vector<float>{5, 5});
  CHECK(native::index_select(native::full({}, 5.0, kFloat32), 0, longs({0}, {1})).dim() == 0);
  CHECK_THROWS_WITH(native::gather(native::zeros({2, 2}), 0, longs({0}, {1})), Contains("dims"));
}

TEST_CASE("one_hot", "[index]") {
  Tensor inferred = native::one_hot(longs({0, 2, 1, 0}, {2, 2}));
  CHECK(inferred.sizes() == Shape{2, 2, 3});
  CHECK(inferred.dtype() == kInt64);
  CHECK(inferred.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0});
  CHECK(native::one_hot(longs({1, 0}, {2}), 4).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 0, 0, 1, 0, 0, 0});
  CHECK(native::one_hot(longs({}, {0}), 3).sizes() == Shape{0, 3});
  CHECK_THROWS_WITH(native::one_hot(longs({1, -2}, {2})), Contains("non-negative") && Contains("-2"));
  CHECK_THROWS_WITH(native::one_hot(longs({1, 5}, {2}), 3), Contains("5") && Contains("num_classes 3"));
  CHECK_THROWS_WITH(native::one_hot(longs({}, {0})), Contains("empty"));
  CHECK_THROWS_WITH(native::one_hot(native::zeros({2})), Contains("int64") && Contains("float32"));
}
