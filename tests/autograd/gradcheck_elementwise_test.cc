// gradcheck of every elementwise op: same shapes, broadcast shapes, non-contiguous inputs.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
using UnaryFn = std::function<Tensor(const Tensor&)>;

// Checks op(a, b) for matching, broadcast (both ways) and non-contiguous operands.
void check_binary(const BinaryFn& op, Values a_values = Values::Normal, Values b_values = Values::Normal) {
  std::vector<std::pair<Tensor, Tensor>> cases = {
      {make({3, 4}, a_values), make({3, 4}, b_values)},
      {make({3, 4}, a_values), make({4}, b_values)},
      {make({1, 4}, a_values), make({3, 1}, b_values)},
      {make({2, 1, 3}, a_values), make({4, 1}, b_values)},
      {make({}, a_values), make({2, 3}, b_values)},
      {make({3, 4}, a_values, Layout::Transposed), make({3, 4}, b_values, Layout::Strided)},
  };
  for (auto& [a, b] : cases) {
    INFO("shapes " << fmt::format("{} and {}", a.sizes(), b.sizes()));
    REQUIRE(gradcheck([&](const TensorList& in) { return op(in[0], in[1]); }, {a, b}));
  }
}

// Checks op(x) for a few shapes and layouts.
void check_unary(const UnaryFn& op, Values values = Values::Normal) {
  std::vector<Tensor> cases = {make({5}, values), make({2, 3, 2}, values), make({}, values),
                               make({3, 4}, values, Layout::Transposed), make({2, 3}, values, Layout::Strided)};
  for (const Tensor& x : cases) {
    INFO("shape " << fmt::format("{}", x.sizes()) << (x.is_contiguous() ? "" : " (non-contiguous)"));
    REQUIRE(gradcheck([&](const TensorList& in) { return op(in[0]); }, {x}));
  }
}

TEST_CASE("gradcheck add, with alpha", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return a + b; });
  check_binary([](const Tensor& a, const Tensor& b) { return add(a, b, 2.5); });
}

TEST_CASE("gradcheck sub, with alpha", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return a - b; });
  check_binary([](const Tensor& a, const Tensor& b) { return a.sub(b, -0.5); });
}

TEST_CASE("gradcheck mul", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return a * b; });
}

TEST_CASE("gradcheck div", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return a / b; }, Values::Normal, Values::NonZero);
}

TEST_CASE("gradcheck pow of two tensors", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return pow(a, b); }, Values::Positive, Values::Normal);
}

TEST_CASE("gradcheck pow with a number exponent", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.pow(3); });
  check_unary([](const Tensor& x) { return x.pow(2.5); }, Values::Positive);
  check_unary([](const Tensor& x) { return x.pow(-1.5); }, Values::Positive);
  check_unary([](const Tensor& x) { return x.pow(0); });
}

TEST_CASE("gradcheck pow with a number base", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return pow(2.5, x); });
  check_unary([](const Tensor& x) { return pow(0.3, x); });
}

TEST_CASE("gradcheck tensor-number arithmetic in both orders", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x + 1.5; });
  check_unary([](const Tensor& x) { return 1.5 + x; });
  check_unary([](const Tensor& x) { return x - 2; });
  check_unary([](const Tensor& x) { return 2 - x; });
  check_unary([](const Tensor& x) { return x * -3.0; });
  check_unary([](const Tensor& x) { return 3.0 * x; });
  check_unary([](const Tensor& x) { return x / 4.0; });
  check_unary([](const Tensor& x) { return 4.0 / x; }, Values::NonZero);
  check_unary([](const Tensor& x) { return -x; });
}

TEST_CASE("gradcheck addcmul and addcdiv", "[gradcheck][elementwise]") {
  Tensor x = make({3, 4}), a = make({4}), b = make({3, 1}, Values::NonZero);
  REQUIRE(gradcheck([](const TensorList& in) { return addcmul(in[0], in[1], in[2], 0.5); }, {x, a, b}));
  REQUIRE(gradcheck([](const TensorList& in) { return addcdiv(in[0], in[1], in[2], -2.0); }, {x, a, b}));
}

TEST_CASE("gradcheck abs, sign", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.abs(); }, Values::NonZero);
  check_unary([](const Tensor& x) { return x.sign(); }, Values::NonZero);
}

TEST_CASE("gradcheck exp, log, sqrt, rsqrt", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.exp(); });
  check_unary([](const Tensor& x) { return x.log(); }, Values::Positive);
  check_unary([](const Tensor& x) { return x.sqrt(); }, Values::Positive);
  check_unary([](const Tensor& x) { return x.rsqrt(); }, Values::Positive);
}

TEST_CASE("gradcheck square, reciprocal", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.square(); });
  check_unary([](const Tensor& x) { return x.reciprocal(); }, Values::NonZero);
}

TEST_CASE("gradcheck sin, cos", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.sin(); });
  check_unary([](const Tensor& x) { return x.cos(); });
}

TEST_CASE("gradcheck erf", "[gradcheck][elementwise]") {
  check_unary([](const Tensor& x) { return x.erf(); });
}

TEST_CASE("gradcheck relu, sigmoid, tanh", "[gradcheck][activation]") {
  check_unary([](const Tensor& x) { return x.relu(); }, Values::NonZero);
  check_unary([](const Tensor& x) { return x.sigmoid(); });
  check_unary([](const Tensor& x) { return x.tanh(); });
}

TEST_CASE("gradcheck gelu in both forms, silu", "[gradcheck][activation]") {
  check_unary([](const Tensor& x) { return x.gelu(); });
  check_unary([](const Tensor& x) { return x.gelu("tanh"); });
  check_unary([](const Tensor& x) { return x.silu(); });
}

// Values away from the kinks (0; +-3 for hardswish; beta * x = threshold for softplus), where
// the finite differences straddle two pieces.
TEST_CASE("gradcheck leaky_relu, elu, softplus, hardswish", "[gradcheck][activation]") {
  check_unary([](const Tensor& x) { return leaky_relu(x); }, Values::NonZero);
  check_unary([](const Tensor& x) { return leaky_relu(x, 0.2); }, Values::NonZero);
  check_unary([](const Tensor& x) { return elu(x); }, Values::NonZero);
  check_unary([](const Tensor& x) { return elu(x, 0.5); }, Values::NonZero);
  check_unary([](const Tensor& x) { return softplus(x); });
  check_unary([](const Tensor& x) { return softplus(x * 3.0, 2.0, 1.0); });
  check_unary([](const Tensor& x) { return hardswish(x * 3.0); });
}

TEST_CASE("softplus rejects beta 0", "[activation]") {
  REQUIRE_THROWS_WITH(softplus(make({2}), 0.0), Catch::Contains("softplus: beta must not be 0"));
}

// The divisor's values keep the quotient away from the integers where floor and trunc jump.
TEST_CASE("gradcheck remainder and fmod, with tensor and number operands", "[gradcheck][elementwise]") {
  check_binary([](const Tensor& a, const Tensor& b) { return remainder(a * 3.0, b + 0.0123); }, Values::Normal,
               Values::NonZero);
  check_binary([](const Tensor& a, const Tensor& b) { return fmod(a * 3.0, b + 0.0123); }, Values::Normal,
               Values::NonZero);
  check_unary([](const Tensor& x) { return remainder(x * 3.0, 1.37); });
  check_unary([](const Tensor& x) { return remainder(x * 3.0, -1.37); });
  check_unary([](const Tensor& x) { return fmod(x * 3.0, 1.37); });
  check_unary([](const Tensor& x) { return remainder(2.5, x); }, Values::NonZero);
}

TEST_CASE("gelu rejects an unknown approximation", "[activation]") {
  REQUIRE_THROWS_WITH(make({2}).gelu("fast"), Catch::Contains("approximate must be"));
}

TEST_CASE("gradcheck softmax and log_softmax along each dim", "[gradcheck][activation]") {
  for (int64_t dim : {0, 1, -1}) {
    check_binary([dim](const Tensor& a, const Tensor& b) { return softmax(a * b, dim); });
    REQUIRE(gradcheck([dim](const TensorList& in) { return in[0].softmax(dim); }, {make({3, 4})}));
    REQUIRE(gradcheck([dim](const TensorList& in) { return in[0].log_softmax(dim); }, {make({3, 4})}));
    REQUIRE(gradcheck([dim](const TensorList& in) { return in[0].log_softmax(dim); },
                      {make({3, 4}, Values::Normal, Layout::Transposed)}));
  }
}

TEST_CASE("gradcheck clamp with number bounds", "[gradcheck][select]") {
  check_unary([](const Tensor& x) { return x.clamp(-0.5, 0.7); });
  check_unary([](const Tensor& x) { return x.clamp(-0.2, std::nullopt); });
  check_unary([](const Tensor& x) { return clamp(x, std::nullopt, 0.3); });
}

TEST_CASE("gradcheck clamp with tensor bounds", "[gradcheck][select]") {
  Tensor x = make({3, 4}), lo = make({4}) - 0.5, hi = make({3, 1}) + 0.5;
  lo = lo.detach().requires_grad_();
  hi = hi.detach().requires_grad_();
  REQUIRE(gradcheck([](const TensorList& in) { return clamp(in[0], in[1], in[2]); }, {x, lo, hi}));
  REQUIRE(gradcheck([](const TensorList& in) { return clamp(in[0], in[1], Tensor()); }, {x, lo}));
  REQUIRE(gradcheck([](const TensorList& in) { return in[0].clamp(Tensor(), in[1]); }, {x, hi}));
}

TEST_CASE("gradcheck maximum and minimum", "[gradcheck][select]") {
  check_binary([](const Tensor& a, const Tensor& b) { return maximum(a, b); });
  check_binary([](const Tensor& a, const Tensor& b) { return a.minimum(b); });
}

TEST_CASE("gradcheck where", "[gradcheck][select]") {
  Tensor cond = on_test_device(randn({3, 4}, kFloat64, &generator()).gt(0.0));
  auto fn = [cond](const TensorList& in) { return where(cond, in[0], in[1]); };
  REQUIRE(gradcheck(fn, {make({3, 4}), make({3, 4})}));
  REQUIRE(gradcheck(fn, {make({4}), make({3, 1})}));
  REQUIRE(gradcheck(fn, {make({3, 4}, Values::Normal, Layout::Transposed), make({})}));
}

TEST_CASE("gradcheck masked_fill", "[gradcheck][select]") {
  Tensor mask = on_test_device(randn({4}, kFloat64, &generator()).gt(0.0));
  REQUIRE(gradcheck([mask](const TensorList& in) { return in[0].masked_fill(mask, 2.5); }, {make({3, 4})}));
  REQUIRE(gradcheck([mask](const TensorList& in) { return masked_fill(in[0], mask, -1); },
                    {make({3, 4}, Values::Normal, Layout::Transposed)}));
}

}  // namespace
}  // namespace brisk::test
