// Anomaly mode (DetectAnomalyGuard): a backward that throws or returns a NaN names its node and
// the forward stack that created it.
#include "autograd/anomaly_mode.h"

#include <cmath>

#include "autograd/function.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::AnomalyMode;
using autograd::AutogradContext;
using autograd::DetectAnomalyGuard;
using autograd::Function;
using Catch::Contains;

struct ThrowsInBackward : Function<ThrowsInBackward> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
  static TensorList backward(AutogradContext*, TensorList) { BRISK_FAIL("the backward failed on purpose"); }
};

struct ReturnsNan : Function<ReturnsNan> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
  static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * NAN}; }
};

// Named frames the forward stack must show.
__attribute__((noinline)) Tensor forward_of_the_throwing_node(const Tensor& x) { return ThrowsInBackward::apply(x); }
__attribute__((noinline)) Tensor forward_of_the_nan_node(const Tensor& x) { return ReturnsNan::apply(x); }
__attribute__((noinline)) Tensor sqrt_of_a_negative(const Tensor& x) { return x.sqrt(); }

TEST_CASE("anomaly mode is off by default and the guard restores the previous mode", "[anomaly]") {
  REQUIRE_FALSE(AnomalyMode::is_enabled());
  {
    DetectAnomalyGuard outer;
    REQUIRE(AnomalyMode::is_enabled());
    REQUIRE(AnomalyMode::should_check_nan());
    {
      DetectAnomalyGuard inner(false);
      REQUIRE_FALSE(AnomalyMode::should_check_nan());
    }
    REQUIRE(AnomalyMode::is_enabled());
    REQUIRE(AnomalyMode::should_check_nan());
  }
  REQUIRE_FALSE(AnomalyMode::is_enabled());
  REQUIRE(make({2}).sin().grad_fn()->forward_stack() == nullptr);
}

TEST_CASE("anomaly mode: a backward that throws is reported with its node and forward stack", "[anomaly]") {
  Tensor x = make({2});
  DetectAnomalyGuard detect;
  Tensor y = forward_of_the_throwing_node(x);
  REQUIRE(y.grad_fn()->forward_stack() != nullptr);
  REQUIRE_THROWS_WITH(y.sum().backward(),
                      Contains("the backward failed on purpose") &&
                          Contains("Anomaly mode: raised in the backward of brisk::test::(anonymous "
                                   "namespace)::ThrowsInBackward") &&
                          Contains("forward of brisk::test::(anonymous namespace)::ThrowsInBackward was called at") &&
                          Contains("forward_of_the_throwing_node"));
}

TEST_CASE("anomaly mode: a NaN from a built-in op's backward names the node and its forward", "[anomaly]") {
  Tensor x = tensor({-1.0, 4.0}, kFloat64).requires_grad_();
  {
    Tensor y = sqrt_of_a_negative(x);
    y.sum().backward();  // off: the NaN goes through
    REQUIRE(std::isnan(values(x.grad())[0]));
  }
  DetectAnomalyGuard detect;
  Tensor y = sqrt_of_a_negative(x);
  REQUIRE_THROWS_WITH(y.sum().backward(), Contains("Function 'SqrtBackward' returned nan values in its 0th output") &&
                                              Contains("sqrt_of_a_negative"));
}

TEST_CASE("anomaly mode: a NaN from a custom function's backward names it", "[anomaly]") {
  Tensor x = make({3});
  DetectAnomalyGuard detect;
  Tensor y = forward_of_the_nan_node(x);
  REQUIRE_THROWS_WITH(y.sum().backward(),
                      Contains("Function 'brisk::test::(anonymous namespace)::ReturnsNan' returned nan values in its "
                               "0th output") &&
                          Contains("forward_of_the_nan_node"));
}

TEST_CASE("anomaly mode without check_nan lets NaN through; nodes from before it have no stack", "[anomaly]") {
  Tensor x = make({3});
  Tensor before = forward_of_the_throwing_node(x);
  DetectAnomalyGuard detect(false);
  forward_of_the_nan_node(x).sum().backward();
  REQUIRE(std::isnan(values(x.grad())[0]));
  REQUIRE_THROWS_WITH(before.sum().backward(),
                      Contains("ThrowsInBackward was recorded before anomaly mode was turned on: no forward stack"));
}

}  // namespace
}  // namespace brisk::test
