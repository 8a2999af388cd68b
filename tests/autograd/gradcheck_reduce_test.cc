// gradcheck of the reductions, over all dims, some dims, with and without keepdim, and on
// non-contiguous inputs; exact checks where a gradient has a special rule (ties, zeros).
#include <cmath>

#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using ReduceFn = std::function<Tensor(const Tensor&, const std::vector<int64_t>&, bool)>;

// Checks fn(x, dims, keepdim) for all dims, one dim, two dims (negative too), both keepdims.
void check_reduction(const ReduceFn& fn, Values values = Values::Normal) {
  const std::vector<std::vector<int64_t>> dim_lists = {{}, {0}, {-1}, {0, 2}};
  for (const auto& dims : dim_lists) {
    for (bool keepdim : {false, true}) {
      INFO(fmt::format("dims {} keepdim {}", dims, keepdim));
      auto call = [&](const TensorList& in) { return fn(in[0], dims, keepdim); };
      REQUIRE(gradcheck(call, {make({2, 3, 4}, values)}));
      REQUIRE(gradcheck(call, {make({2, 3, 4}, values, Layout::Transposed)}));
    }
  }
}

TEST_CASE("gradcheck sum", "[gradcheck][reduce]") {
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.sum(d, k); });
}

TEST_CASE("gradcheck mean", "[gradcheck][reduce]") {
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return mean(x, d, k); });
}

TEST_CASE("gradcheck prod", "[gradcheck][reduce]") {
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.prod(d, k); });
}

TEST_CASE("prod's gradient is exact with one zero and zero with two zeros in a slice", "[reduce]") {
  Tensor x = on_test_device(tensor({2, 0, 3, 0, 0, 5}, {2, 3}, kFloat64)).requires_grad_();
  x.prod({1}).sum().backward();
  // Row 0 has one zero: its gradient is the product of the others; row 1 has two zeros.
  REQUIRE(values(x.grad()) == std::vector<double>{0, 6, 0, 0, 0, 0});
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].prod({1}); }, {x}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].prod(); }, {x}));
}

TEST_CASE("gradcheck amax and amin", "[gradcheck][reduce]") {
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.amax(d, k); });
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return amin(x, d, k); });
}

TEST_CASE("amax and amin split the gradient evenly among ties", "[reduce]") {
  Tensor x = on_test_device(tensor({1, 3, 3, 2, 2, 2}, {2, 3}, kFloat64)).requires_grad_();
  x.amax({1}).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  Tensor y = on_test_device(tensor({4, 1, 1}, {3}, kFloat64)).requires_grad_();
  y.amin().backward();
  REQUIRE(values(y.grad()) == std::vector<double>{0, 0.5, 0.5});
}

TEST_CASE("the full max and min split the gradient among ties as amax", "[reduce]") {
  Tensor x = on_test_device(tensor({5, 1, 5}, {3}, kFloat64)).requires_grad_();
  x.max().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{0.5, 0, 0.5});
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].min(); }, {make({3, 4})}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].max(); }, {make({3, 4}, Values::Normal, Layout::Strided)}));
}

TEST_CASE("gradcheck max and min along a dim", "[gradcheck][reduce]") {
  for (int64_t dim : {0, 1, -1}) {
    for (bool keepdim : {false, true}) {
      REQUIRE(gradcheck([=](const TensorList& in) { return max(in[0], dim, keepdim).first; }, {make({3, 4, 2})}));
      REQUIRE(gradcheck([=](const TensorList& in) { return in[0].min(dim, keepdim).first; },
                        {make({3, 4}, Values::Normal, Layout::Transposed)}));
    }
  }
}

TEST_CASE("max along a dim sends the gradient to the returned index only", "[reduce]") {
  Tensor x = on_test_device(tensor({7, 7, 1}, {1, 3}, kFloat64)).requires_grad_();
  auto [values_out, indices] = x.max(1);
  REQUIRE(indices.dtype() == kInt64);
  REQUIRE_FALSE(indices.requires_grad());
  values_out.sum().backward();
  std::vector<double> grad = values(x.grad());
  REQUIRE(grad[indices.item<int64_t>()] == 1.0);
  REQUIRE(grad[0] + grad[1] + grad[2] == 1.0);
}

TEST_CASE("argmax and argmin record no history", "[reduce]") {
  Tensor x = make({3, 4});
  REQUIRE_FALSE(x.argmax().requires_grad());
  REQUIRE_FALSE(argmin(x, 1).requires_grad());
}

TEST_CASE("gradcheck var and std with each correction", "[gradcheck][reduce]") {
  for (int64_t correction : {0, 1}) {
    check_reduction(
        [correction](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.var(d, correction, k); });
    check_reduction([correction](const Tensor& x, const std::vector<int64_t>& d, bool k) {
      return brisk::std(x, d, correction, k);
    });
  }
}

TEST_CASE("std's gradient is zero where all elements are equal", "[reduce]") {
  Tensor x = on_test_device(tensor({2, 2, 1, 3}, {2, 2}, kFloat64)).requires_grad_();
  x.std({1}).sum().backward();
  std::vector<double> grad = values(x.grad());
  REQUIRE(grad[0] == 0.0);
  REQUIRE(grad[1] == 0.0);
  REQUIRE(std::abs(grad[2] + 1.0 / std::sqrt(2.0)) < 1e-12);
}

TEST_CASE("gradcheck logsumexp", "[gradcheck][reduce]") {
  check_reduction([](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.logsumexp(d, k); });
}

TEST_CASE("gradcheck norm for p = 2, 1, 3, 0.5 and infinity", "[gradcheck][reduce]") {
  for (double p : {2.0, 1.0, 3.0, 0.5, double(INFINITY)}) {
    INFO("p = " << p);
    check_reduction([p](const Tensor& x, const std::vector<int64_t>& d, bool k) { return x.norm(p, d, k); },
                    Values::NonZero);
  }
}

TEST_CASE("the 2-norm of zeros has a zero gradient, not NaN", "[reduce]") {
  Tensor x = zeros({3}, TensorOptions(kFloat64).device(test_device()).requires_grad(true));
  x.norm().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{0, 0, 0});
}

}  // namespace
}  // namespace brisk::test
