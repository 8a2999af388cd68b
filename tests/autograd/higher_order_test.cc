// Higher-order gradients: create_graph makes the gradient itself differentiable.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;

void check_second_order(const UnaryFn& op, Values values = Values::Normal) {
  REQUIRE(gradgradcheck([&](const TensorList& in) { return op(in[0]); }, {make({2, 3}, values)}));
  REQUIRE(gradgradcheck([&](const TensorList& in) { return op(in[0]); }, {make({2, 3}, values, Layout::Transposed)}));
}

TEST_CASE("double backward of x^3 with create_graph", "[higher_order]") {
  Tensor x = tensor({1.0, 2.0, -3.0}, kFloat64).requires_grad_();
  Tensor y = (x * x * x).sum();
  y.backward(Tensor(), false, /*create_graph=*/true);
  Tensor first = x.grad();
  REQUIRE(first.requires_grad());
  REQUIRE(values(first) == std::vector<double>{3, 12, 27});
  x.set_grad(Tensor());
  first.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{6, 12, -18});
}

TEST_CASE("autograd::grad of a gradient: a Hessian-vector product", "[higher_order][grad]") {
  Tensor x = make({3});
  Tensor y = (x.pow(4) * 0.25).sum();  // Hessian = diag(3 x^2)
  Tensor g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  Tensor v = tensor({1.0, 2.0, 3.0}, kFloat64);
  Tensor hv = autograd::grad({(g * v).sum()}, {x})[0];
  REQUIRE(close(hv, x.detach().square() * 3.0 * v));
}

TEST_CASE("third derivative by three nested grads", "[higher_order][grad]") {
  Tensor x = make({2});
  Tensor y = x.sin().sum();
  Tensor d1 = autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
  Tensor d2 = autograd::grad({d1.sum()}, {x}, {}, std::nullopt, true)[0];
  Tensor d3 = autograd::grad({d2.sum()}, {x})[0];
  REQUIRE(close(d3, -x.detach().cos()));
}

TEST_CASE("gradgradcheck arithmetic and math functions", "[higher_order][gradcheck]") {
  check_second_order([](const Tensor& x) { return x * x.sin(); });
  check_second_order([](const Tensor& x) { return x / (x * x + 1.0); });
  check_second_order([](const Tensor& x) { return x.pow(3); });
  check_second_order([](const Tensor& x) { return pow(x, x); }, Values::Positive);
  check_second_order([](const Tensor& x) { return pow(1.7, x); });
  check_second_order([](const Tensor& x) { return x.exp() + x.log(); }, Values::Positive);
  check_second_order([](const Tensor& x) { return x.sqrt() + x.rsqrt(); }, Values::Positive);
  check_second_order([](const Tensor& x) { return x.reciprocal() + x.square(); }, Values::NonZero);
  check_second_order([](const Tensor& x) { return x.cos() * x.abs(); }, Values::NonZero);
  check_second_order([](const Tensor& x) { return addcdiv(x, x, x * x + 2.0, 0.5); });
}

TEST_CASE("gradgradcheck activations", "[higher_order][gradcheck]") {
  check_second_order([](const Tensor& x) { return x.relu() * x; }, Values::NonZero);
  check_second_order([](const Tensor& x) { return x.sigmoid(); });
  check_second_order([](const Tensor& x) { return x.erf(); });
  check_second_order([](const Tensor& x) { return x.tanh(); });
  check_second_order([](const Tensor& x) { return x.gelu(); });
  check_second_order([](const Tensor& x) { return x.gelu("tanh"); });
  check_second_order([](const Tensor& x) { return x.silu(); });
  check_second_order([](const Tensor& x) { return leaky_relu(x, 0.2) * x; }, Values::NonZero);
  check_second_order([](const Tensor& x) { return elu(x, 0.7); }, Values::NonZero);
  check_second_order([](const Tensor& x) { return softplus(x); });
  check_second_order([](const Tensor& x) { return softplus(x * 3.0, 2.0, 1.0); });
  check_second_order([](const Tensor& x) { return hardswish(x * 3.0); });
  check_second_order([](const Tensor& x) { return x.softmax(1); });
  check_second_order([](const Tensor& x) { return x.log_softmax(0); });
}

TEST_CASE("gradgradcheck reductions", "[higher_order][gradcheck]") {
  check_second_order([](const Tensor& x) { return (x * x).sum({1}); });
  check_second_order([](const Tensor& x) { return (x * x).mean({0}, true); });
  check_second_order([](const Tensor& x) { return x.prod({1}); });
  check_second_order([](const Tensor& x) { return x.var({1}); });
  check_second_order([](const Tensor& x) { return brisk::std(x); });
  check_second_order([](const Tensor& x) { return x.logsumexp({1}); });
  check_second_order([](const Tensor& x) { return x.norm(); });
  check_second_order([](const Tensor& x) { return x.norm(3.0, {0}); }, Values::NonZero);
  check_second_order([](const Tensor& x) { return x.amax({1}) * x.amin({1}); });
  check_second_order([](const Tensor& x) { return max(x * x, 0).first; });
}

TEST_CASE("gradgradcheck views, joins and indexing", "[higher_order][gradcheck]") {
  Tensor index = tensor<int64_t>({1, 0, 1});
  check_second_order([](const Tensor& x) { return x.t().reshape({3, 2}) * x.t(); });
  check_second_order([](const Tensor& x) { return x.narrow(1, 1, 2).square(); });
  check_second_order([](const Tensor& x) { return x.slice(1, 0, std::nullopt, 2).square(); });
  check_second_order([](const Tensor& x) { return x.select(0, 1).exp(); });
  check_second_order([](const Tensor& x) { return x.unsqueeze(0).expand({2, 2, 3}).square(); });
  check_second_order([](const Tensor& x) { return cat({x, x * x}, 1); });
  check_second_order([](const Tensor& x) { return stack({x.sin(), x}, 0); });
  check_second_order([](const Tensor& x) { return x.chunk(3, 1)[2].square(); });
  check_second_order([&](const Tensor& x) { return x.index_select(0, index).square(); });
  check_second_order([&](const Tensor& x) { return x.square().gather(0, index.reshape({3, 1}).expand({3, 3})); });
}

TEST_CASE("gradgradcheck selection ops", "[higher_order][gradcheck]") {
  check_second_order([](const Tensor& x) { return maximum(x, x.sin()) * x; });
  check_second_order([](const Tensor& x) { return x.clamp(-0.5, 0.5) * x; });
  check_second_order([](const Tensor& x) { return where(x.gt(0.0), x * x, x.exp()); });
}

TEST_CASE("gradgradcheck matrix products", "[higher_order][gradcheck]") {
  REQUIRE(gradgradcheck([](const TensorList& in) { return matmul(in[0], in[1]).square(); },
                        {make({2, 3, 4}), make({4, 2})}));
  REQUIRE(gradgradcheck([](const TensorList& in) { return matmul(in[0], in[1]).exp(); }, {make({3}), make({3, 2})}));
  REQUIRE(gradgradcheck([](const TensorList& in) { return addmm(in[0], in[1], in[1].t()).square(); },
                        {make({3}), make({3, 2})}));
}

TEST_CASE("gradients computed under create_graph accumulate with history", "[higher_order]") {
  Tensor x = make({2});
  (x * x).sum().backward(Tensor(), false, true);
  (x * x * x).sum().backward(Tensor(), false, true);
  Tensor g = x.grad();  // 2x + 3x^2
  REQUIRE(g.requires_grad());
  x.set_grad(Tensor());
  g.sum().backward();
  REQUIRE(close(x.grad(), x.detach() * 6.0 + 2.0));
}

}  // namespace
}  // namespace brisk::test
