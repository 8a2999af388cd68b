// The backward engine on graphs of different shapes, backward's errors and autograd::grad.
#include <thread>

#include "autograd/node.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::Engine;

TEST_CASE("a tensor used twice gets the sum of both gradients", "[engine]") {
  Tensor x = make({3});
  (x * x).sum().backward();
  REQUIRE(close(x.grad(), x.detach() * 2.0));
}

TEST_CASE("a shared subgraph runs once with the summed gradient", "[engine]") {
  Tensor x = make({3});
  Tensor a = x.exp();
  (a * 2.0 + a * 3.0).sum().backward();
  REQUIRE(close(x.grad(), x.detach().exp() * 5.0));
}

TEST_CASE("a diamond graph", "[engine]") {
  Tensor x = make({4});
  Tensor a = x * 2.0;
  Tensor y = (a.sin() + a.cos()).sum();
  y.backward();
  Tensor expected = (a.detach().cos() - a.detach().sin()) * 2.0;
  REQUIRE(close(x.grad(), expected));
}

TEST_CASE("gradients accumulate into .grad across backward calls", "[engine]") {
  Tensor x = make({2});
  (x * 3.0).sum().backward();
  (x * 4.0).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{7, 7});
}

TEST_CASE("retain_graph keeps saved tensors for a second backward", "[engine]") {
  Tensor x = make({3});
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  REQUIRE(close(x.grad(), x.detach() * 4.0));
}

TEST_CASE("a second backward through freed saved tensors is an error", "[engine]") {
  Tensor x = make({3});
  Tensor y = (x * x).sum();
  y.backward();
  REQUIRE_THROWS_WITH(y.backward(), Catch::Contains("Trying to backward through the graph a second time") &&
                                        Catch::Contains("retain_graph=true"));
}

TEST_CASE("a graph without saved tensors can be run twice", "[engine]") {
  Tensor x = make({2});
  Tensor y = (x + 1.0).sum();
  y.backward();
  y.backward();
  REQUIRE(values(x.grad()) == std::vector<double>{2, 2});
}

TEST_CASE("backward on a tensor that does not require grad is an error", "[engine]") {
  Tensor x = randn({2});
  REQUIRE_THROWS_WITH(x.sum().backward(), Catch::Contains("does not require grad and does not have a grad_fn"));
}

TEST_CASE("backward on a non-scalar needs a gradient", "[engine]") {
  Tensor x = make({2, 3});
  Tensor y = x * 2.0;
  REQUIRE_THROWS_WITH(y.backward(), Catch::Contains("grad can be implicitly created only for scalar outputs") &&
                                        Catch::Contains("[2, 3]"));
  y.backward(full({2, 3}, 0.5, kFloat64));
  REQUIRE(values(x.grad()) == std::vector<double>(6, 1.0));
}

TEST_CASE("a gradient of the wrong shape is an error naming both shapes", "[engine]") {
  Tensor y = make({2, 3}) * 2.0;
  REQUIRE_THROWS_WITH(y.backward(ones({3}, kFloat64)),
                      Catch::Contains("Mismatch in shape") && Catch::Contains("[3]") && Catch::Contains("[2, 3]"));
}

TEST_CASE("a gradient that arrives as a broadcast view is summed correctly with later ones", "[engine]") {
  // The sum's gradient (an expanded view) reaches x first; u's gradient arrives after it.
  Tensor x = make({4});
  Tensor u = x * 3.0;
  Tensor t = x.sum() * 2.0;
  (t + u.sum()).backward();
  REQUIRE(values(x.grad()) == std::vector<double>(4, 5.0));
  Tensor a = x * 1.0;
  Tensor v = a * 3.0;
  Tensor w = a.sum() * 2.0;
  x.set_grad(Tensor());
  (w + v.sum()).backward();
  REQUIRE(values(x.grad()) == std::vector<double>(4, 5.0));
}

TEST_CASE("a broadcast first gradient is stored as a dense .grad and accumulates correctly", "[engine]") {
  Tensor x = make({3});
  (x.sum() * 2.0).backward();
  REQUIRE(x.grad().is_contiguous());
  (x * 1.0).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>(3, 3.0));
}

TEST_CASE("backward from a leaf accumulates the given gradient", "[engine]") {
  Tensor x = make({2});
  x.backward(full({2}, 3.0, kFloat64));
  REQUIRE(values(x.grad()) == std::vector<double>{3, 3});
}

TEST_CASE("backward of several roots at once", "[engine]") {
  Tensor x = make({2});
  Tensor a = (x * 2.0).sum(), b = (x * x).sum();
  autograd::backward({a, b});
  REQUIRE(close(x.grad(), x.detach() * 2.0 + 2.0));
}

TEST_CASE("broadcast gradients are summed back to each input's shape", "[engine]") {
  Tensor a = make({3, 1}), b = make({4});
  (a * b).sum().backward();
  REQUIRE(a.grad().sizes() == Shape{3, 1});
  REQUIRE(b.grad().sizes() == Shape{4});
  REQUIRE(close(a.grad(), b.detach().sum().expand({3, 1})));
}

TEST_CASE("mixed dtypes: each leaf's gradient has the leaf's dtype", "[engine]") {
  Tensor a = tensor<float>({1.0f, 2.0f}).requires_grad_();
  Tensor b = tensor({3.0, 4.0}, kFloat64).requires_grad_();
  Tensor y = a * b;
  REQUIRE(y.dtype() == kFloat64);
  y.sum().backward();
  REQUIRE(a.grad().dtype() == kFloat32);
  REQUIRE(a.grad().to_vector<float>() == std::vector<float>{3.0f, 4.0f});
  REQUIRE(values(b.grad()) == std::vector<double>{1, 2});
}

TEST_CASE("the first gradient is copied, so the caller's tensor stays independent", "[engine]") {
  Tensor x = make({2});
  Tensor g = full({2}, 2.0, kFloat64);
  (x * 1.0).backward(g);
  g.fill_(100.0);
  REQUIRE(values(x.grad()) == std::vector<double>{2, 2});
}

TEST_CASE("two leaves given the same gradient tensor do not share .grad", "[engine]") {
  Tensor a = make({2}), b = make({2});
  (a + b).sum().backward();
  {
    NoGradGuard no_grad;
    a.grad().mul_(10.0);
  }
  REQUIRE(values(b.grad()) == std::vector<double>{1, 1});
}

TEST_CASE("nodes run after everything that feeds them, latest recorded first", "[engine]") {
  Tensor x = make({2});
  std::vector<std::string> order;
  Tensor a = x * 2.0;
  Tensor b = a.exp();
  Tensor c = a.sin();
  a.register_hook([&](const Tensor&) {
    order.push_back("a");
    return Tensor();
  });
  b.register_hook([&](const Tensor&) {
    order.push_back("b");
    return Tensor();
  });
  c.register_hook([&](const Tensor&) {
    order.push_back("c");
    return Tensor();
  });
  (b + c).sum().backward();
  REQUIRE(order == std::vector<std::string>{"c", "b", "a"});
}

TEST_CASE("ops record history only when an input requires grad", "[engine]") {
  Tensor x = make({2});
  Tensor plain = randn({2}, kFloat64);
  REQUIRE(x.is_leaf());
  REQUIRE((plain * 2.0).grad_fn() == nullptr);
  REQUIRE_FALSE((plain * 2.0).requires_grad());
  Tensor y = x * plain;
  REQUIRE(y.requires_grad());
  REQUIRE_FALSE(y.is_leaf());
  REQUIRE(y.grad_fn()->name() == "MulBackward");
  REQUIRE(y.grad_fn()->next_edges().size() == 2);
  REQUIRE_FALSE(y.grad_fn()->next_edge(1).valid());
}

TEST_CASE("factories set requires_grad from the options", "[engine]") {
  Tensor z = zeros({2, 2}, TensorOptions(kFloat64).requires_grad(true));
  REQUIRE(z.requires_grad());
  REQUIRE(z.is_leaf());
  REQUIRE(randn({3}, TensorOptions().requires_grad(true)).requires_grad());
  REQUIRE(full({2}, 1.5, TensorOptions().requires_grad(true)).requires_grad());
  REQUIRE_FALSE(ones({2}).requires_grad());
  REQUIRE_FALSE(zeros_like(z).requires_grad());
  REQUIRE_THROWS_WITH(zeros({2}, TensorOptions(kInt64).requires_grad(true)), Catch::Contains("floating point"));
}

TEST_CASE("a long chain runs and is freed without deep recursion", "[engine]") {
  Tensor x = make({1});
  {
    Tensor y = x;
    for (int i = 0; i < 200000; ++i) y = y * 1.0;
    y.sum().backward();
  }
  REQUIRE(values(x.grad()) == std::vector<double>{1});
}

TEST_CASE("autograd::grad returns gradients and leaves .grad alone", "[engine][grad]") {
  Tensor x = make({3});
  Tensor y = (x * x).sum();
  TensorList grads = autograd::grad({y}, {x});
  REQUIRE(grads.size() == 1);
  REQUIRE(close(grads[0], x.detach() * 2.0));
  REQUIRE_FALSE(x.grad().defined());
}

TEST_CASE("autograd::grad with respect to a non-leaf", "[engine][grad]") {
  Tensor x = make({3});
  Tensor a = x * 3.0;
  Tensor y = (a * a).sum();
  TensorList grads = autograd::grad({y}, {a, x});
  REQUIRE(close(grads[0], a.detach() * 2.0));
  REQUIRE(close(grads[1], a.detach() * 6.0));
}

TEST_CASE("autograd::grad with allow_unused gives an undefined gradient for an unused input", "[engine][grad]") {
  Tensor x = make({2}), unused = make({2});
  Tensor y = (x * 2.0).sum();
  REQUIRE_THROWS_WITH(
      autograd::grad({y}, {x, unused}, {}, true),
      Catch::Contains("appears to not have been used in the graph") && Catch::Contains("allow_unused=true"));
  TensorList grads = autograd::grad({y}, {x, unused}, {}, std::nullopt, false, /*allow_unused=*/true);
  REQUIRE(values(grads[0]) == std::vector<double>{2, 2});
  REQUIRE_FALSE(grads[1].defined());
}

TEST_CASE("autograd::grad with several outputs and their gradients", "[engine][grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0, b = x * x;
  TensorList grads = autograd::grad({a, b}, {x}, {full({2}, 1.0, kFloat64), full({2}, 0.5, kFloat64)});
  REQUIRE(close(grads[0], x.detach() + 2.0));
}

TEST_CASE("autograd::grad refuses inputs that do not require grad", "[engine][grad]") {
  Tensor x = make({2});
  Tensor y = (x * 2.0).sum();
  REQUIRE_THROWS_WITH(autograd::grad({y}, {randn({2}, kFloat64)}), Catch::Contains("does not require grad"));
}

TEST_CASE("autograd::grad runs only the part of the graph it needs", "[engine][grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  bool upstream_ran = false;
  x.register_hook([&](const Tensor&) {
    upstream_ran = true;
    return Tensor();
  });
  Tensor y = (a * a).sum();
  autograd::grad({y}, {a});
  REQUIRE_FALSE(upstream_ran);
}

TEST_CASE("queue_callback runs after the whole backward pass, in order, including nested queues", "[engine]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  std::vector<std::string> log;
  a.register_hook([&](const Tensor&) {
    Engine::queue_callback([&] {
      log.push_back(x.grad().defined() ? "first, grad ready" : "first, no grad");
      Engine::queue_callback([&] { log.push_back("nested"); });
    });
    Engine::queue_callback([&] { log.push_back("second"); });
    return Tensor();
  });
  (a * a).sum().backward();
  REQUIRE(log == std::vector<std::string>{"first, grad ready", "second", "nested"});
}

TEST_CASE("queue_callback outside a backward pass is an error", "[engine]") {
  REQUIRE_THROWS_WITH(Engine::queue_callback([] {}), Catch::Contains("during the backward pass"));
}

TEST_CASE("no_grad: ops record no history inside the guard", "[grad_mode]") {
  Tensor x = make({2});
  {
    NoGradGuard no_grad;
    REQUIRE_FALSE(autograd::GradMode::is_enabled());
    Tensor y = x * 2.0;
    REQUIRE_FALSE(y.requires_grad());
    REQUIRE(y.grad_fn() == nullptr);
    {
      EnableGradGuard enable;
      REQUIRE((x * 2.0).requires_grad());
    }
    REQUIRE_FALSE((x * 2.0).requires_grad());
  }
  REQUIRE(autograd::GradMode::is_enabled());
  REQUIRE((x * 2.0).requires_grad());
}

TEST_CASE("grad mode is per thread", "[grad_mode]") {
  NoGradGuard no_grad;
  bool other_thread_enabled = false;
  std::thread([&] { other_thread_enabled = autograd::GradMode::is_enabled(); }).join();
  REQUIRE(other_thread_enabled);
  REQUIRE_FALSE(autograd::GradMode::is_enabled());
}

TEST_CASE("detach shares the data and the version counter but not the history", "[engine]") {
  Tensor x = make({3});
  Tensor y = x * 2.0;
  Tensor d = y.detach();
  REQUIRE_FALSE(d.requires_grad());
  REQUIRE(d.is_leaf());
  REQUIRE(d.storage() == y.storage());
  uint32_t version = y.version();
  d.add_(1.0);
  REQUIRE(y.version() == version + 1);
  REQUIRE(close(y.detach(), d));
}

TEST_CASE("detach_ turns a non-leaf into a leaf that does not require grad", "[engine]") {
  Tensor x = make({3});
  Tensor y = x * 2.0;
  y.detach_();
  REQUIRE(y.is_leaf());
  REQUIRE_FALSE(y.requires_grad());
  REQUIRE_THROWS_WITH(x.t().detach_(), Catch::Contains("detach_"));
}

TEST_CASE("requires_grad_ on a non-leaf is an error", "[engine]") {
  Tensor y = make({2}) * 2.0;
  REQUIRE_THROWS(y.requires_grad_(false));
}

}  // namespace
}  // namespace brisk::test
