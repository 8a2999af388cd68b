// gradcheck of the matrix products (every shape case of matmul) and the indexing ops.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

void check_matmul(const Shape& a, const Shape& b) {
  INFO(fmt::format("matmul {} @ {}", a, b));
  auto fn = [](const TensorList& in) { return matmul(in[0], in[1]); };
  REQUIRE(gradcheck(fn, {make(a), make(b)}));
  REQUIRE(gradcheck(fn, {make(a, Values::Normal, Layout::Transposed), make(b, Values::Normal, Layout::Strided)}));
}

TEST_CASE("gradcheck matmul of vectors and matrices", "[gradcheck][linalg]") {
  check_matmul({4}, {4});
  check_matmul({3, 4}, {4});
  check_matmul({4}, {4, 2});
  check_matmul({3, 4}, {4, 2});
}

TEST_CASE("gradcheck batched matmul with broadcast batch dims", "[gradcheck][linalg]") {
  check_matmul({2, 3, 4}, {2, 4, 2});
  check_matmul({2, 3, 4}, {4, 2});
  check_matmul({3, 4}, {2, 4, 2});
  check_matmul({2, 1, 3, 4}, {3, 4, 2});
  check_matmul({4}, {2, 4, 3});
  check_matmul({2, 3, 4}, {4});
}

// A tensor-parallel rank may hold no feature of a layer (distributed/tensor_parallel/).
TEST_CASE("matmul's gradient with an empty inner or outer dim is empty or zero", "[linalg]") {
  for (auto [a_shape, b_shape] : std::vector<std::pair<Shape, Shape>>{{{2, 3, 0}, {0, 4}}, {{2, 3, 4}, {4, 0}}}) {
    INFO(fmt::format("matmul {} @ {}", a_shape, b_shape));
    Tensor a = make(a_shape), b = make(b_shape);
    matmul(a, b).sum().backward();
    CHECK(a.grad().sizes() == a_shape);
    CHECK(b.grad().sizes() == b_shape);
    if (a.numel() > 0) CHECK(a.grad().abs().sum().item<double>() == 0);
  }
}

TEST_CASE("matmul's gradient with only one operand requiring grad", "[linalg]") {
  Tensor a = make({3, 4});
  Tensor b = on_test_device(randn({2, 4, 5}, kFloat64));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].matmul(in[1]); }, {a, b}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[1].matmul(in[0].t()); },
                    {a, on_test_device(randn({2, 5, 4}, kFloat64))}));
}

TEST_CASE("gradcheck mm and bmm", "[gradcheck][linalg]") {
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].mm(in[1]); },
                    {make({3, 4}), make({4, 2}, Values::Normal, Layout::Transposed)}));
  REQUIRE(gradcheck([](const TensorList& in) { return bmm(in[0], in[1]); },
                    {make({2, 3, 4}, Values::Normal, Layout::Transposed), make({2, 4, 2})}));
}

TEST_CASE("gradcheck addmm with a broadcast bias, beta and alpha", "[gradcheck][linalg]") {
  Tensor bias = make({2}), bias2d = make({3, 2}), a = make({3, 4}),
         b = make({4, 2}, Values::Normal, Layout::Transposed);
  REQUIRE(gradcheck([](const TensorList& in) { return addmm(in[0], in[1], in[2]); }, {bias, a, b}));
  REQUIRE(gradcheck([](const TensorList& in) { return addmm(in[0], in[1], in[2], 0.5, -2.0); }, {bias2d, a, b}));
}

TEST_CASE("gradcheck index_select along each dim, with repeated indices", "[gradcheck][index]") {
  Tensor index = on_test_device(tensor<int64_t>({2, 0, 2}));
  for (int64_t dim : {0, 1, -1}) {
    REQUIRE(gradcheck([&](const TensorList& in) { return in[0].index_select(dim, index); }, {make({3, 3})}));
    REQUIRE(gradcheck([&](const TensorList& in) { return index_select(in[0], dim, index); },
                      {make({3, 3}, Values::Normal, Layout::Transposed)}));
  }
}

TEST_CASE("index_select accumulates the gradient of a repeated index", "[index]") {
  Tensor x = make({3});
  x.index_select(0, on_test_device(tensor<int64_t>({1, 1, 1, 0}))).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{1, 3, 0});
}

TEST_CASE("gradcheck gather", "[gradcheck][index]") {
  Tensor index = on_test_device(tensor<int64_t>({0, 2, 1, 1, 0, 0}, {3, 2}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].gather(1, index); }, {make({3, 3})}));
  Tensor index0 = on_test_device(tensor<int64_t>({2, 0, 1, 2}, {2, 2}));
  REQUIRE(gradcheck([&](const TensorList& in) { return gather(in[0], 0, index0); },
                    {make({3, 2}, Values::Normal, Layout::Strided)}));
}

TEST_CASE("gradcheck scatter_add in both the target and the source", "[gradcheck][index]") {
  Tensor index = on_test_device(tensor<int64_t>({0, 2, 0, 1, 1, 1}, {2, 3}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].scatter_add(1, index, in[1]); },
                    {make({2, 4}), make({2, 3})}));
  REQUIRE(gradcheck([&](const TensorList& in) { return scatter_add(in[0], 0, index, in[1]); },
                    {make({3, 3}, Values::Normal, Layout::Transposed), make({2, 3})}));
}

TEST_CASE("gradcheck masked_select, the mask and the input broadcast", "[gradcheck][index]") {
  Tensor mask = on_test_device(tensor<bool>({true, false, true, true}, {4}));
  REQUIRE(gradcheck([&](const TensorList& in) { return masked_select(in[0], mask); }, {make({3, 4})}));
  Tensor mask2 = on_test_device(tensor<bool>({true, false, false, true, true, false}, {2, 3}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].masked_select(mask2); },
                    {make({3}, Values::Normal, Layout::Strided)}));
}

TEST_CASE("gradcheck index with slices, None, an int and an index tensor", "[gradcheck][index]") {
  using namespace indexing;
  REQUIRE(gradcheck(
      [](const TensorList& in) {
        return in[0].index({Slice(1, None), None, -1});
      },
      {make({3, 4}, Values::Normal, Layout::Transposed)}));
  Tensor positions = on_test_device(tensor<int64_t>({2, 0, 2, -1}, {2, 2}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].index({"...", positions}); }, {make({2, 3})}));
  Tensor mask = on_test_device(tensor<bool>({true, false, true}, {3}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].index({mask, Slice(None, None, 2)}); }, {make({3, 4})}));
}

TEST_CASE("gradcheck index_put_ in the tensor and the values", "[gradcheck][index]") {
  using namespace indexing;
  Tensor positions = on_test_device(tensor<int64_t>({2, 0}, {2}));
  Tensor mask = on_test_device(tensor<bool>({true, false, false, true, true, false}, {2, 3}));
  // On a clone: index_put_ refuses a leaf that requires grad, as every in-place op.
  REQUIRE(gradcheck(
      [](const TensorList& in) {
        return in[0].clone().index_put_({Slice(), 1}, in[1]);
      },
      {make({3, 4}), make({3})}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].clone().index_put_({positions}, in[1]); },
                    {make({3, 4}), make({1, 4})}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].clone().index_put_({mask}, in[1]); },
                    {make({2, 3}), make({3})}));
  REQUIRE(gradcheck([&](const TensorList& in) { return in[0].clone().index_put_({mask}, 0.5); }, {make({2, 3})}));
}

TEST_CASE("one_hot, comparisons and logical ops record no history", "[index]") {
  Tensor x = make({3});
  REQUIRE(one_hot(on_test_device(tensor<int64_t>({0, 2})), 3).dtype() == kInt64);
  for (const Tensor& t : {x == x, x != x, x<x, x <= x, x> x, x >= x, x.eq(0.5), logical_not(x.gt(0.0)),
                          logical_and(x.gt(0.0), x.lt(1.0)), logical_or(x.gt(0.0), x.lt(1.0))}) {
    REQUIRE(t.dtype() == kBool);
    REQUIRE_FALSE(t.requires_grad());
  }
}

}  // namespace
}  // namespace brisk::test
