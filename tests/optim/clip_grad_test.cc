// clip_grad_norm_ and clip_grad_value_ against PyTorch (tests/fixtures/optim.json): norms of
// order 2, 1, inf and 3, a max_norm above the total (no clipping), a parameter without a
// gradient; plus the edge cases and errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "optim/clip_grad.h"
#include "tests/optim/fixture.h"

namespace brisk::test {
namespace {

// Parameters whose gradients are the case's "grads" (null: no gradient).
std::vector<Tensor> params_with_grads(const json& spec) {
  std::vector<Tensor> params;
  for (const json& g : spec.at("grads")) {
    if (g.is_null()) {
      params.push_back(zeros({1}, TensorOptions().requires_grad(true)));
      continue;
    }
    Tensor grad = fixture_tensor(g);
    Tensor p = zeros(grad.sizes(), TensorOptions().requires_grad(true));
    p.set_grad(grad);
    params.push_back(p);
  }
  return params;
}

void check_clipped(const std::vector<Tensor>& params, const json& spec) {
  const json& clipped = spec.at("clipped");
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << i);
    if (clipped[i].is_null()) {
      REQUIRE_FALSE(params[i].grad().defined());
      continue;
    }
    std::string why;
    bool ok = matches(params[i].grad(), clipped[i], 1e-6, 1e-7, why);
    INFO(why);
    REQUIRE(ok);
  }
}

double norm_type(const json& spec) {
  const json& n = spec.at("norm_type");
  return n.is_string() ? std::numeric_limits<double>::infinity() : n.get<double>();
}

TEST_CASE("clip_grad_norm_ and clip_grad_value_ match PyTorch", "[optim][clip][fixture]") {
  const json& cases = optim_fixture().at("clipping");
  REQUIRE(cases.size() >= 5);
  for (const json& spec : cases) {
    INFO("case " << spec.at("name").get<std::string>());
    std::vector<Tensor> params = params_with_grads(spec);
    if (spec.at("kind") == "norm") {
      Tensor total = optim::clip_grad_norm_(params, spec.at("max_norm").get<double>(), norm_type(spec));
      REQUIRE(total.dim() == 0);
      REQUIRE(total.dtype() == kFloat32);
      REQUIRE(total.item<float>() == Approx(spec.at("total_norm").get<double>()).epsilon(1e-6));
    } else {
      optim::clip_grad_value_(params, spec.at("clip_value").get<double>());
    }
    check_clipped(params, spec);
  }
}

TEST_CASE("clip_grad_norm_ without gradients returns 0", "[optim][clip]") {
  std::vector<Tensor> params = {zeros({3}, TensorOptions().requires_grad(true))};
  REQUIRE(optim::clip_grad_norm_(params, 1.0).item<float>() == 0.0f);
}

TEST_CASE("clip_grad_norm_ clips a float64 gradient to max_norm", "[optim][clip]") {
  Tensor p = zeros({2}, TensorOptions(kFloat64).requires_grad(true));
  p.set_grad(tensor({3.0, 4.0}, kFloat64));
  Tensor total = optim::clip_grad_norm_({p}, 1.0);
  REQUIRE(total.item<double>() == 5.0);
  // scaled by max_norm / (total + 1e-6), as PyTorch: just under max_norm
  const double coef = 1.0 / (5.0 + 1e-6);
  REQUIRE(p.grad().to_vector<double>() == std::vector<double>{3.0 * coef, 4.0 * coef});
}

TEST_CASE("clip_grad_norm_ errors on a non-finite norm only when asked", "[optim][clip]") {
  Tensor p = zeros({2}, TensorOptions().requires_grad(true));
  p.set_grad(tensor({1.0f, std::numeric_limits<float>::infinity()}));
  REQUIRE_THROWS_WITH(optim::clip_grad_norm_({p}, 1.0, 2.0, true), Catch::Contains("clip_grad_norm_") &&
                                                                       Catch::Contains("inf") &&
                                                                       Catch::Contains("error_if_nonfinite"));
  Tensor total = optim::clip_grad_norm_({p}, 1.0);
  REQUIRE(std::isinf(total.item<float>()));
}

TEST_CASE("clip_grad_norm_ rejects a norm_type that is not positive", "[optim][clip]") {
  Tensor p = zeros({2}, TensorOptions().requires_grad(true));
  p.set_grad(ones({2}));
  REQUIRE_THROWS_WITH(optim::clip_grad_norm_({p}, 1.0, 0.0), Catch::Contains("norm_type") && Catch::Contains("0"));
}

}  // namespace
}  // namespace brisk::test
