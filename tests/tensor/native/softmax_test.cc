// Native softmax / log_softmax and their backward: values and gradients against PyTorch 2.x
// (torch.softmax / torch.log_softmax and autograd on the same inputs), along every dim.
#include <cmath>
#include <limits>

#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;
using testing::require_close;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor sample(DType dtype = kFloat32) {
  return make<float>({1.5,  -2.0, 3.0, 0.5, 4.0,  -1.0, 2.5, -3.5, 0.25, 2.0, -0.75, 1.0,
                      -1.0, 0.5,  2.0, 3.0, 1.25, -2.5, 0.0, 4.5,  -3.0, 1.5, 2.25,  -0.5},
                     {2, 3, 4}, dtype);
}

Tensor upstream_grad(DType dtype = kFloat32) {
  return make<float>({0.5, -1.0, 2.0,  1.5, -0.75, 1.0,  0.25, 0.3, -0.2, 0.9, 1.1, -1.3,
                      0.7, 0.0,  -0.6, 0.4, 1.2,   -0.9, 0.8,  0.1, -0.4, 0.6, 1.4, -1.1},
                     {2, 3, 4}, dtype);
}

struct SoftmaxCase {
  int64_t dim;
  bool log;
  std::vector<double> output;
  std::vector<double> grad_input;  // for upstream_grad()
};

TEST_CASE("softmax and log_softmax along every dim match PyTorch, forward and backward") {
  const SoftmaxCase cases[] = {
      {2,
       false,
       {0.170074791,  0.00513581326,  0.76222229,    0.062567018, 0.812729776,  0.00547613017,
        0.181344524,  0.000449508138, 0.108231179,   0.622827411, 0.0398160219, 0.22912541,
        0.0124742137, 0.0559055433,   0.250551283,   0.681068957, 0.0368998758, 0.000867801893,
        0.0105719911, 0.951660335,    0.00340407109, 0.306424707, 0.648701131,  0.0414700732},
       {-0.20378305,   -0.0138574345,  0.230041236,    -0.0124005731, -0.155556276, 0.00853509735,
        0.146635219,   0.000385947817, -0.052474048,   0.383142889,   0.0324567109, -0.363125503,
        0.00709996372, -0.00731405243, -0.183110088,   0.183324173,   0.0388510525, -0.00090869487,
        0.006902216,   -0.0448445715,  -0.00491907913, -0.136376649,  0.230251491,  -0.0889557004}},
      {2,
       true,
       {-1.77151704, -5.2715168,   -0.271517009, -2.77151704,   -0.207356632, -5.20735645, -1.70735669,  -7.70735645,
        -2.22348595, -0.473485857, -3.22348595,  -1.47348583,   -4.38409185,  -2.88409162, -1.38409173,  -0.384091705,
        -3.2995472,  -7.0495472,   -4.5495472,   -0.0495470949, -5.68278313,  -1.18278313, -0.432783157, -3.18278313},
       {-0.0102243721, -1.01540744,  -0.28666687, 1.31229889,  -1.4001838,   0.995619118,   0.104924388,  0.299640417,
        -0.254115582,  0.588586271,  1.08009207,  -1.4145627,  0.693762898,  -0.0279527735, -0.725275636, 0.0594655462,
        1.15572023,    -0.901041329, 0.78731364,  -1.04199255, -0.401702046, 0.446787655,   1.07564938,   -1.12073505}},
      {1,
       false,
       {0.0742445663, 0.017147826,  0.61347872,   0.374947935, 0.904484034,  0.0466126204, 0.372093648, 0.00686741108,
        0.0212714262, 0.936239541,  0.0144276368, 0.618184626, 0.0941347331, 0.265387952,  0.413332343, 0.181426078,
        0.893125474,  0.0132128876, 0.0559384488, 0.813095272, 0.0127397515, 0.721399188,  0.530729234, 0.00547859306},
       {0.0850467756,  -0.032102108,  0.40744108,   0.652093649,  -0.0945231095,  0.00596266845,
        -0.40403837,   0.00370261865, 0.0094763143, 0.0261394251, -0.00340277678, -0.655796289,
        -0.0407178774, -0.111714512,  -0.471104741, 0.0457459465, 0.0602423139,   -0.0174535364,
        0.0145567358,  -0.0389094725, -0.019524293, 0.129168034,  0.456548005,    -0.00683648139}},
      {1,
       true,
       {-2.60039067,  -4.06588411,   -0.488609701, -0.980968118, -0.10039065, -3.06588387,  -0.988609672, -4.980968,
        -3.85039067,  -0.0658839121, -4.23860979,  -0.480968088, -2.36302829, -1.32656264,  -0.883503318, -1.70690703,
        -0.113028176, -4.32656288,   -2.88350344,  -0.206906989, -4.36302805, -0.326562643, -0.633503318, -5.2069068},
       {0.533410072,  -1.01543307,  -0.055153653, 1.31252599,  -0.342982203, 0.958048642,  -0.996513784, 0.296566308,
        -0.19042787,  0.0573844127, 1.05166745,   -1.60909224, 0.558797896,  0.0796163678, -1.26133168,  0.508855641,
        -0.139688268, -0.896036088, 0.710498512,  0.587857187, -0.419109643, 0.816419721,  0.550833225,  -1.09671283}},
      {0,
       false,
       {0.924141824,  0.0758581758, 0.731058598,  0.0758581758, 0.939913332,  0.817574441, 0.924141824, 0.000335350138,
        0.962673068,  0.622459352,  0.0474258736, 0.817574441,  0.0758581758, 0.924141824, 0.268941432, 0.924141824,
        0.0600866452, 0.182425514,  0.0758581758, 0.999664664,  0.0373268835, 0.377540678, 0.952574134, 0.182425514},
       {-0.014020754,  -0.0701037124,   0.51119107,     0.0771140829,  -0.110128671,  0.283378273,
        -0.0385570452, 6.70475347e-05,  0.00718670338,  0.070501104,   -0.0135529963, -0.0298292655,
        0.014020741,   0.0701037124,    -0.51119107,    -0.0771140903, 0.110128671,   -0.283378243,
        0.0385570414,  -6.70476365e-05, -0.00718671829, -0.070501104,  0.0135529842,  0.0298292805}},
      {0,
       true,
       {-0.0788897499, -2.57888985,     -0.313261658,  -2.57888985,   -0.061967615,  -0.201413333,
        -0.0788897499, -8.00033569,     -0.0380414128, -0.474076986,  -3.04858732,   -0.201413333,
        -2.57888985,   -0.0788897499,   -1.31326163,   -0.0788897499, -2.81196761,   -1.70141339,
        -2.57888985,   -0.000335398683, -3.28804135,   -0.974076986,  -0.0485873297, -1.70141339},
       {-0.608970225, -0.924141824, 0.976517975,  1.35586953,    -1.172961,    0.918242514,
        -0.720348895, 0.299865872,  0.377603859,  -0.0336890519, 0.981435359,  0.662178814,
        0.608970165,  0.924141824,  -0.976518035, -1.35586941,   1.172961,     -0.918242514,
        0.720348954,  -0.299865872, -0.377603859, 0.0336890072,  -0.981435359, -0.662178814}},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = sample(dtype);
    for (const SoftmaxCase& c : cases) {
      INFO((c.log ? "log_softmax" : "softmax") << " along dim " << c.dim << " in " << dtype_name(dtype));
      Tensor y = native::softmax(x, c.dim, c.log);
      REQUIRE(y.dtype() == dtype);
      require_close(y, c.output, 1e-6);
      Tensor gx = native::softmax_backward(upstream_grad(dtype), y, c.dim, c.log);
      require_close(gx, c.grad_input, 1e-5);
      require_close(native::softmax(x, c.dim - 3, c.log), c.output, 1e-6);
    }
  }
}

TEST_CASE("softmax is stable for large and infinite inputs") {
  Tensor x = make<float>({1000, 1001, 1002, -INFINITY, 0, 1}, {2, 3});
  require_close(native::softmax(x, 1, false), {0.0900305733, 0.244728476, 0.665240943, 0, 0.268941432, 0.731058598});
  require_close(native::softmax(x, 1, true),
                {-2.40760589, -1.40760589, -0.407605946, -kInf, -1.31326163, -0.313261658});
}

TEST_CASE("softmax of a non-contiguous input and of a 0-dim input") {
  Tensor xt = native::transpose(sample(), 1, 2);  // [2, 4, 3]: softmax along its dim 2 is dim 1 of sample()
  Tensor y = native::softmax(xt, 2, false);
  Tensor expected = native::transpose(native::softmax(sample(), 1, false), 1, 2);
  require_close(y, expected.to_vector<double>(), 1e-7);
  require_close(native::softmax(make<float>({2.0f}, {}), 0, false), {1.0});
  require_close(native::softmax(make<float>({2.0f}, {}), -1, true), {0.0});
}

// Row-wise softmax in float64, for checking the threaded kernels.
std::vector<double> reference_softmax(const std::vector<double>& x, int64_t outer, int64_t n, int64_t inner) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double max = -kInf, sum = 0;
      for (int64_t k = 0; k < n; ++k) max = std::max(max, x[(o * n + k) * inner + j]);
      for (int64_t k = 0; k < n; ++k) sum += std::exp(x[(o * n + k) * inner + j] - max);
      for (int64_t k = 0; k < n; ++k) y[(o * n + k) * inner + j] = std::exp(x[(o * n + k) * inner + j] - max) / sum;
    }
  }
  return y;
}

TEST_CASE("large softmax over rows and over columns") {
  for (Shape shape : {Shape{600, 100}, Shape{8, 300, 70}}) {
    int64_t n = shape_numel(shape);
    Tensor x = native::reshape(native::unary(UnaryOp::Sin, native::arange(0, n, 1, kFloat64)), shape);
    const int64_t dim = 1;  // rows of [600, 100]; columns (inner 70) of [8, 300, 70]
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
    for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d) inner *= shape[d];
    std::vector<double> expected = reference_softmax(x.to_vector<double>(), outer, shape[dim], inner);
    require_close(native::softmax(x, dim, false), expected, 1e-12);
  }
}

TEST_CASE("16-bit softmax computes in float32") {
  Tensor y = native::softmax(sample(kFloat16), 2, false);
  REQUIRE(y.dtype() == kFloat16);
  require_close(native::reduce(ReduceOp::Sum, native::to(y, kCPU, kFloat32), {2}, false), {1, 1, 1, 1, 1, 1}, 2e-3);
}

TEST_CASE("softmax errors name the op, shapes and dtypes") {
  REQUIRE_THROWS_WITH(native::softmax(make<int64_t>({1, 2}, {2}), 0, false),
                      Catch::Contains("softmax") && Catch::Contains("[2] int64"));
  REQUIRE_THROWS_WITH(native::softmax(sample(), 3, true), Catch::Contains("log_softmax") && Catch::Contains("3"));
  REQUIRE_THROWS_WITH(native::softmax_backward(native::zeros({2}), sample(), 0, false),
                      Catch::Contains("softmax_backward") && Catch::Contains("[2, 3, 4]"));
}

}  // namespace
}  // namespace brisk
