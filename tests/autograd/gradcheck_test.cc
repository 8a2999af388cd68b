// gradcheck itself: it must catch wrong gradients and refuse inputs it cannot check.
#include "autograd/function.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::AutogradContext;

// sin with a backward that is off by a factor of 2 at element 1.
struct WrongSin : autograd::Function<WrongSin> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x.sin();
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    Tensor x = ctx->get_saved_variables()[0];
    Tensor scale = ones_like(x);
    scale.narrow(0, 1, 1).fill_(2.0);
    return {grads[0] * x.cos() * scale};
  }
};

TEST_CASE("gradcheck reports a wrong gradient with the input, the element and both values", "[gradcheck]") {
  Tensor x = make({3});
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return WrongSin::apply(in[0]); }, {x}),
                      Catch::Contains("gradcheck: Jacobian mismatch for input 0") && Catch::Contains("element [1]") &&
                          Catch::Contains("numerical") && Catch::Contains("analytical"));
}

TEST_CASE("gradcheck names the failing input among several", "[gradcheck]") {
  Tensor a = make({2}), b = make({2});
  auto fn = [](const TensorList& in) { return in[0] + WrongSin::apply(in[1]); };
  REQUIRE_THROWS_WITH(gradcheck(fn, {a, b}), Catch::Contains("for input 1"));
}

TEST_CASE("gradcheck skips inputs that do not require grad", "[gradcheck]") {
  Tensor a = make({2, 2});
  Tensor b = on_test_device(randn({2, 2}, kFloat64));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0] * in[1]; }, {a, b}));
}

TEST_CASE("gradcheck refuses float32 inputs", "[gradcheck]") {
  Tensor x = on_test_device(randn({3})).requires_grad_();
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return in[0] * 2; }, {x}), Catch::Contains("needs float64"));
}

TEST_CASE("gradcheck refuses inputs whose elements share memory", "[gradcheck]") {
  Tensor x = on_test_device(randn({1, 3}, kFloat64)).expand({4, 3}).detach().requires_grad_();
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return in[0] * 2; }, {x}),
                      Catch::Contains("sharing memory"));
}

TEST_CASE("gradcheck refuses a call with no input requiring grad", "[gradcheck]") {
  REQUIRE_THROWS_WITH(gradcheck([](const TensorList& in) { return in[0] * 2; }, {on_test_device(randn({2}, kFloat64))}),
                      Catch::Contains("no input requires grad"));
}

TEST_CASE("gradcheck leaves the inputs' values and .grad untouched", "[gradcheck]") {
  Tensor x = make({2, 3}, Values::Normal, Layout::Transposed);
  std::vector<double> before = values(x);
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].exp(); }, {x}));
  REQUIRE(values(x) == before);
  REQUIRE_FALSE(x.grad().defined());
}

// sin whose backward is right but not differentiable in x (it detaches x).
struct DetachedSin : autograd::Function<DetachedSin> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x.sin();
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    return {grads[0] * ctx->get_saved_variables()[0].detach().cos()};
  }
};

TEST_CASE("gradgradcheck catches a first derivative that is not differentiable", "[gradcheck]") {
  Tensor x = make({3});
  auto fn = [](const TensorList& in) { return DetachedSin::apply(in[0]); };
  REQUIRE(gradcheck(fn, {x}));
  REQUIRE_THROWS_WITH(gradgradcheck(fn, {x}), Catch::Contains("Jacobian mismatch"));
  REQUIRE(gradgradcheck([](const TensorList& in) { return in[0].sin() * in[0]; }, {x}));
}

}  // namespace
}  // namespace brisk::test
