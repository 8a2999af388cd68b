// Native reductions: values against PyTorch 2.x (torch.sum/mean/amax/amin/var/logsumexp,
// torch.linalg.vector_norm, torch.max/min/argmax/argmin on the same inputs), every loop
// path (inner, outer, mixed dims; split over threads), dtypes, empty inputs and errors.
#include <limits>

#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;
using testing::require_close;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A [2, 3, 4] tensor.
Tensor sample(DType dtype = kFloat32) {
  return make<float>({1.5,  -2.0, 3.0, 0.5, 4.0,  -1.0, 2.5, -3.5, 0.25, 2.0, -0.75, 1.0,
                      -1.0, 0.5,  2.0, 3.0, 1.25, -2.5, 0.0, 4.5,  -3.0, 1.5, 2.25,  -0.5},
                     {2, 3, 4}, dtype);
}

struct ReduceCase {
  std::vector<int64_t> dims;
  ReduceOp op;
  OpParams params;
  std::vector<double> expected;
};

TEST_CASE("reductions over every combination of dims match PyTorch") {
  // Var: correction 1; Norm: p = 2.
  const ReduceCase cases[] = {
      {{}, ReduceOp::Sum, {}, {15.5}},
      {{}, ReduceOp::Mean, {}, {0.645833313}},
      {{}, ReduceOp::Max, {}, {4.5}},
      {{}, ReduceOp::Min, {}, {-3.5}},
      {{}, ReduceOp::Var, {1.0}, {4.58650351}},
      {{}, ReduceOp::LogSumExp, {}, {5.4975791}},
      {{}, ReduceOp::Norm, {2.0}, {10.7470922}},
      {{0}, ReduceOp::Sum, {}, {0.5, -1.5, 5, 3.5, 5.25, -3.5, 2.5, 1, -2.75, 3.5, 1.5, 0.5}},
      {{0}, ReduceOp::Mean, {}, {0.25, -0.75, 2.5, 1.75, 2.625, -1.75, 1.25, 0.5, -1.375, 1.75, 0.75, 0.25}},
      {{0}, ReduceOp::Max, {}, {1.5, 0.5, 3, 3, 4, -1, 2.5, 4.5, 0.25, 2, 2.25, 1}},
      {{0}, ReduceOp::Min, {}, {-1, -2, 2, 0.5, 1.25, -2.5, 0, -3.5, -3, 1.5, -0.75, -0.5}},
      {{0}, ReduceOp::Var, {1.0}, {3.125, 3.125, 0.5, 3.125, 3.78125, 1.125, 3.125, 32, 5.28125, 0.125, 4.5, 1.125}},
      {{0},
       ReduceOp::LogSumExp,
       {},
       {1.57888973, 0.578889728, 3.31326175, 3.07888985, 4.06196785, -0.798586667, 2.57888985, 4.50033522, 0.288041413,
        2.47407699, 2.29858732, 1.20141339}},
      {{0},
       ReduceOp::Norm,
       {2.0},
       {1.80277562, 2.06155276, 3.60555124, 3.04138136, 4.19076347, 2.69258237, 2.5, 5.70087719, 3.01039863, 2.5,
        2.37170815, 1.11803401}},
      {{1}, ReduceOp::Sum, {}, {5.75, -1, 4.75, -2, -2.75, -0.5, 4.25, 7}},
      {{1},
       ReduceOp::Mean,
       {},
       {1.91666663, -0.333333343, 1.58333337, -0.666666687, -0.916666687, -0.166666672, 1.41666663, 2.33333325}},
      {{1}, ReduceOp::Max, {}, {4, 2, 3, 1, 1.25, 1.5, 2.25, 4.5}},
      {{1}, ReduceOp::Min, {}, {0.25, -2, -0.75, -3.5, -3, -2.5, 0, -0.5}},
      {{1},
       ReduceOp::Var,
       {1.0},
       {3.64583325, 4.33333349, 4.14583349, 6.08333349, 4.52083349, 4.33333349, 1.52083337, 6.58333349}},
      {{1},
       ReduceOp::LogSumExp,
       {},
       {4.10039043, 2.06588387, 3.48860979, 1.48096812, 1.36302817, 1.82656264, 2.88350344, 4.7069068}},
      {{1}, ReduceOp::Norm, {2.0}, {4.2793107, 3, 3.97649336, 3.67423463, 3.40036774, 2.95804, 3.01039863, 5.43139029}},
      {{2}, ReduceOp::Sum, {}, {3, 2, 2.5, 4.5, 3.25, 0.25}},
      {{2}, ReduceOp::Mean, {}, {0.75, 0.5, 0.625, 1.125, 0.8125, 0.0625}},
      {{2}, ReduceOp::Max, {}, {3, 4, 2, 3, 4.5, 2.25}},
      {{2}, ReduceOp::Min, {}, {-2, -3.5, -0.75, -1, -2.5, -3}},
      {{2}, ReduceOp::Var, {1.0}, {4.41666651, 11.5, 1.35416663, 3.0625, 8.47395802, 5.515625}},
      {{2}, ReduceOp::LogSumExp, {}, {3.27151704, 4.20735645, 2.47348595, 3.38409162, 4.5495472, 2.68278313}},
      {{2}, ReduceOp::Norm, {2.0}, {3.93700385, 5.95818758, 2.37170815, 3.77491713, 5.29740524, 4.06970501}},
      {{0, 2}, ReduceOp::Sum, {}, {7.5, 5.25, 2.75}},
      {{0, 2}, ReduceOp::Mean, {}, {0.9375, 0.65625, 0.34375}},
      {{0, 2}, ReduceOp::Max, {}, {3, 4.5, 2.25}},
      {{0, 2}, ReduceOp::Min, {}, {-2, -3.5, -3}},
      {{0, 2}, ReduceOp::Var, {1.0}, {3.24553561, 8.58817005, 3.03459811}},
      {{0, 2}, ReduceOp::LogSumExp, {}, {4.02253485, 5.08616495, 3.27674723}},
      {{0, 2}, ReduceOp::Norm, {2.0}, {5.45435619, 7.97260952, 4.710361}},
      {{-1, 0}, ReduceOp::Sum, {}, {7.5, 5.25, 2.75}},
      {{-1, 0}, ReduceOp::Mean, {}, {0.9375, 0.65625, 0.34375}},
      {{-1, 0}, ReduceOp::Max, {}, {3, 4.5, 2.25}},
      {{-1, 0}, ReduceOp::Min, {}, {-2, -3.5, -3}},
      {{-1, 0}, ReduceOp::Var, {1.0}, {3.24553561, 8.58817005, 3.03459811}},
      {{-1, 0}, ReduceOp::LogSumExp, {}, {4.02253485, 5.08616495, 3.27674723}},
      {{-1, 0}, ReduceOp::Norm, {2.0}, {5.45435619, 7.97260952, 4.710361}},
      {{1, 2}, ReduceOp::Sum, {}, {7.5, 8}},
      {{1, 2}, ReduceOp::Mean, {}, {0.625, 0.666666687}},
      {{1, 2}, ReduceOp::Max, {}, {4, 4.5}},
      {{1, 2}, ReduceOp::Min, {}, {-3.5, -3}},
      {{1, 2}, ReduceOp::Var, {1.0}, {4.721591, 4.86742401}},
      {{1, 2}, ReduceOp::LogSumExp, {}, {4.6577034, 4.93236017}},
      {{1, 2}, ReduceOp::Norm, {2.0}, {7.52495861, 7.67300463}},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = sample(dtype);
    for (const ReduceCase& c : cases) {
      INFO(op_name(c.op) << " over " << c.dims.size() << " dims of " << dtype_name(dtype));
      Tensor y = native::reduce(c.op, x, c.dims, false, c.params);
      REQUIRE(y.dtype() == dtype);
      require_close(y, c.expected, 1e-6);
      REQUIRE(native::reduce(c.op, x, c.dims, true, c.params).dim() == 3);
    }
  }
}

TEST_CASE("keepdim, strided inputs and 0-dim inputs") {
  Tensor x = sample();
  REQUIRE(native::reduce(ReduceOp::Sum, x, {0, 2}, true).sizes() == Shape{1, 3, 1});
  REQUIRE(native::reduce(ReduceOp::Sum, x, {1}, false).sizes() == Shape{2, 4});
  REQUIRE(native::reduce(ReduceOp::Sum, x, {}, false).sizes() == Shape{});
  // Reducing a permuted view gives the values of the same reduction on the original dims.
  Tensor p = native::permute(x, {2, 0, 1});  // [4, 2, 3]
  require_close(native::reduce(ReduceOp::Sum, p, {1}, false),
                {0.5, 5.25, -2.75, -1.5, -3.5, 3.5, 5.0, 2.5, 1.5, 3.5, 1.0, 0.5});
  Tensor s = make<float>({2.5}, {});
  require_close(native::reduce(ReduceOp::Sum, s, {}, false), {2.5});
  require_close(native::reduce(ReduceOp::Max, s, {0}, true), {2.5});
  auto [v, i] = native::max_with_indices(s, 0, false);
  REQUIRE(i.item<int64_t>() == 0);
}

TEST_CASE("prod, var correction and the p-norms") {
  Tensor x = sample();
  require_close(native::reduce(ReduceOp::Prod, x, {0}, false),
                {-1.5, -1.0, 6.0, 1.5, 5.0, 2.5, 0.0, -15.75, -0.75, 3.0, -1.6875, -0.5});
  require_close(native::reduce(ReduceOp::Prod, x, {1, 2}, false), {59.0625, 0.0});
  require_close(native::reduce(ReduceOp::Var, x, {1}, false, {0.0}),
                {2.43055558, 2.88888884, 2.76388884, 4.05555534, 3.01388884, 2.88888884, 1.01388884, 4.38888884});
  require_close(native::reduce(ReduceOp::Norm, x, {2}, false, {1.0}), {7.0, 11.0, 4.0, 6.5, 8.25, 7.25});
  require_close(native::reduce(ReduceOp::Norm, x, {2}, false, {kInf}), {3.0, 4.0, 2.0, 3.0, 4.5, 3.0});
  require_close(native::reduce(ReduceOp::Norm, x, {2}, false, {-kInf}), {0.5, 1.0, 0.25, 0.5, 0.0, 0.5});
  require_close(native::reduce(ReduceOp::Norm, x, {2}, false, {3.0}),
                {3.37665677, 4.97991991, 2.11325717, 3.30574465, 4.77251577, 3.47300673});
  require_close(native::reduce(ReduceOp::Norm, x, {2}, false, {0.0}), {4.0, 4.0, 4.0, 4.0, 3.0, 4.0});
  // Too few elements for the correction: inf or NaN, as PyTorch.
  require_close(native::reduce(ReduceOp::Var, make<float>({1.0f}, {1}), {}, false, {1.0}), {kNaN});
  require_close(native::reduce(ReduceOp::Var, make<float>({1.0f, 3.0f}, {2}), {}, false, {3.0}), {kInf});
}

TEST_CASE("max and min with indices, argmax and argmin") {
  Tensor x = sample();
  auto [v1, i1] = native::max_with_indices(x, 1, false);
  require_close(v1, {4.0, 2.0, 3.0, 1.0, 1.25, 1.5, 2.25, 4.5});
  REQUIRE(i1.dtype() == kInt64);
  REQUIRE(i1.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 0, 2, 1, 2, 2, 1});
  auto [v2, i2] = native::min_with_indices(x, -1, true);
  REQUIRE(v2.sizes() == Shape{2, 3, 1});
  require_close(v2, {-2.0, -3.5, -0.75, -1.0, -2.5, -3.0});
  REQUIRE(i2.to_vector<int64_t>() == std::vector<int64_t>{1, 3, 2, 0, 1, 0});
  REQUIRE(native::argmax(x, std::nullopt, false).item<int64_t>() == 19);
  REQUIRE(native::argmin(x, std::nullopt, false).item<int64_t>() == 7);
  REQUIRE(native::argmax(x, std::nullopt, true).sizes() == Shape{1, 1, 1});
  REQUIRE(native::argmax(x, 0, false).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0});
  REQUIRE(native::reduce(ReduceOp::ArgMin, x, {2}, false).to_vector<int64_t>() ==
          std::vector<int64_t>{1, 3, 2, 0, 1, 0});
}

TEST_CASE("ties pick the first index; NaN wins and propagates") {
  Tensor ties = make<float>({2, 5, 5, 1, 1}, {5});
  REQUIRE(native::max_with_indices(ties, 0, false).second.item<int64_t>() == 1);
  REQUIRE(native::min_with_indices(ties, 0, false).second.item<int64_t>() == 3);
  Tensor nan = make<float>({1, 3, 3, std::nanf(""), 2, std::nanf("")}, {6});
  auto [v, i] = native::max_with_indices(nan, 0, false);
  REQUIRE(std::isnan(v.item<float>()));
  REQUIRE(i.item<int64_t>() == 3);
  REQUIRE(native::argmax(nan, std::nullopt, false).item<int64_t>() == 3);
  require_close(native::reduce(ReduceOp::Max, nan, {}, false), {kNaN});
  require_close(native::reduce(ReduceOp::Min, nan, {}, false), {kNaN});
}

TEST_CASE("logsumexp is stable and handles infinities like PyTorch") {
  Tensor x = make<float>({-INFINITY, -INFINITY, INFINITY, 1, INFINITY, INFINITY, 1000, 1000}, {4, 2});
  require_close(native::reduce(ReduceOp::LogSumExp, x, {1}, false), {-kInf, kInf, kInf, 1000.6932}, 1e-6);
}

TEST_CASE("reduction dtypes follow PyTorch") {
  Tensor i = make<int32_t>({1, -2, 3}, {3});
  Tensor b = make<bool>({true, false, true}, {3});
  Tensor s = native::reduce(ReduceOp::Sum, i, {}, false);
  REQUIRE(s.dtype() == kInt64);
  REQUIRE(s.item<int64_t>() == 2);
  REQUIRE(native::reduce(ReduceOp::Sum, b, {}, false).item<int64_t>() == 2);
  REQUIRE(native::reduce(ReduceOp::Prod, make<uint8_t>({200, 2}, {2}), {}, false).item<int64_t>() == 400);
  REQUIRE(native::reduce(ReduceOp::Max, i, {}, false).dtype() == kInt32);
  REQUIRE(native::reduce(ReduceOp::Max, b, {}, false).item<bool>());
  Tensor lse = native::reduce(ReduceOp::LogSumExp, i, {0}, false);
  REQUIRE(lse.dtype() == kFloat32);
  require_close(lse, {3.13284516});
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Mean, i, {}, false),
                      Catch::Contains("mean") && Catch::Contains("[3] int32"));
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Var, i, {}, false, {1.0}), Catch::Contains("var"));
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Norm, i, {}, false, {2.0}), Catch::Contains("norm"));
  REQUIRE_THROWS_WITH(native::argmax(b, std::nullopt, false), Catch::Contains("argmax") && Catch::Contains("bool"));
  Tensor h = make<float>({1.5, 2.5, 3.0}, {3}, kFloat16);
  Tensor hs = native::reduce(ReduceOp::Mean, h, {}, false);
  REQUIRE(hs.dtype() == kFloat16);
  require_close(hs, {2.33333333}, 1e-3);
}

TEST_CASE("empty reductions") {
  Tensor e = native::empty({2, 0});
  require_close(native::reduce(ReduceOp::Sum, e, {1}, false), {0, 0});
  require_close(native::reduce(ReduceOp::Prod, e, {1}, false), {1, 1});
  require_close(native::reduce(ReduceOp::Mean, e, {1}, false), {kNaN, kNaN});
  require_close(native::reduce(ReduceOp::Var, e, {1}, false, {1.0}), {kNaN, kNaN});
  require_close(native::reduce(ReduceOp::LogSumExp, e, {1}, false), {-kInf, -kInf});
  require_close(native::reduce(ReduceOp::Norm, e, {1}, false, {2.0}), {0, 0});
  REQUIRE(native::reduce(ReduceOp::Max, native::empty({0, 2}), {1}, false).sizes() == Shape{0});
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Max, e, {1}, false),
                      Catch::Contains("amax") && Catch::Contains("dim 1") && Catch::Contains("[2, 0]"));
  REQUIRE_THROWS_WITH(native::max_with_indices(e, 1, false), Catch::Contains("max") && Catch::Contains("[2, 0]"));
  REQUIRE_THROWS_WITH(native::argmax(e, std::nullopt, false),
                      Catch::Contains("argmax") && Catch::Contains("empty") && Catch::Contains("[2, 0]"));
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Sum, e, {2}, false), Catch::Contains("sum") && Catch::Contains("2"));
  REQUIRE_THROWS_WITH(native::reduce(ReduceOp::Sum, e, {1, -1}, false), Catch::Contains("repeats"));
}

TEST_CASE("large reductions take the threaded paths and stay exact") {
  SECTION("a full sum splits the reduction over threads") {
    const int64_t n = 1 << 20;
    Tensor ones = native::ones({n});
    REQUIRE(native::reduce(ReduceOp::Sum, ones, {}, false).item<float>() == float(n));
    Tensor a = native::arange(0, n, 1, kFloat64);
    REQUIRE(native::reduce(ReduceOp::Sum, a, {}, false).item<double>() == double(n) * (n - 1) / 2);
    require_close(native::reduce(ReduceOp::Mean, a, {}, false), {(n - 1) / 2.0}, 1e-12);
    require_close(native::reduce(ReduceOp::Var, a, {}, false, {0.0}), {(double(n) * n - 1) / 12.0}, 1e-9);
  }
  SECTION("argmax keeps the first occurrence across chunks") {
    const int64_t n = 1 << 20;
    Tensor x = native::zeros({n});
    Tensor first = native::narrow(x, 0, 700000, 1), second = native::narrow(x, 0, 900000, 1);
    native::fill_(first, Scalar(5));
    native::fill_(second, Scalar(5));
    REQUIRE(native::argmax(x, std::nullopt, false).item<int64_t>() == 700000);
    Tensor nan = native::narrow(x, 0, 800000, 1);
    native::fill_(nan, Scalar(NAN));
    REQUIRE(native::argmax(x, 0, false).item<int64_t>() == 800000);
  }
  SECTION("columns of a tall matrix reduce together") {
    const int64_t rows = 100000, cols = 7;
    Tensor a = native::view(native::arange(0, rows * cols, 1, kFloat64), {rows, cols});
    std::vector<double> expected;
    for (int64_t c = 0; c < cols; ++c) expected.push_back(double(cols) * rows * (rows - 1) / 2 + double(c) * rows);
    require_close(native::reduce(ReduceOp::Sum, a, {0}, false), expected, 1e-12);
    auto [v, i] = native::max_with_indices(a, 0, false);
    REQUIRE(i.to_vector<int64_t>() == std::vector<int64_t>(cols, rows - 1));
  }
  SECTION("many short rows") {
    Tensor a = native::ones({50000, 3}, kInt64);
    Tensor s = native::reduce(ReduceOp::Sum, a, {1}, false);
    REQUIRE(s.to_vector<int64_t>() == std::vector<int64_t>(50000, 3));
  }
}

TEST_CASE("sum_to reduces a broadcast result back to an operand's shape") {
  Tensor x = sample();
  Tensor s = native::sum_to(x, {3, 1});
  REQUIRE(s.sizes() == Shape{3, 1});
  require_close(s, {7.5, 5.25, 2.75});
  require_close(native::sum_to(x, {}), {15.5});
  REQUIRE(native::sum_to(x, {2, 3, 4}).is_same(x));
  REQUIRE_THROWS_WITH(native::sum_to(x, {2, 4}), Catch::Contains("sum_to") && Catch::Contains("[2, 4]"));
}

}  // namespace
}  // namespace brisk
