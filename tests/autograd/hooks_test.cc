// Tensor hooks, post-accumulate-grad hooks and retain_grad.
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

TEST_CASE("a hook on a leaf sees its gradient and can replace it", "[hooks]") {
  Tensor x = make({2});
  Tensor seen;
  x.register_hook([&](const Tensor& g) {
    seen = g;
    return g * 10.0;
  });
  (x * 3.0).sum().backward();
  REQUIRE(values(seen) == std::vector<double>{3, 3});
  REQUIRE(values(x.grad()) == std::vector<double>{30, 30});
}

TEST_CASE("a hook on a non-leaf changes the gradient flowing past it", "[hooks]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  a.register_hook([](const Tensor& g) { return g + 1.0; });
  (a * 3.0).sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{8, 8});
}

TEST_CASE("hooks run in registration order, each seeing the previous replacement", "[hooks]") {
  Tensor x = make({1});
  Tensor a = x * 1.0;
  std::vector<double> seen;
  a.register_hook([&](const Tensor& g) {
    seen.push_back(g.item<double>());
    return g * 2.0;
  });
  a.register_hook([&](const Tensor& g) {
    seen.push_back(g.item<double>());
    return Tensor();  // keeps the gradient
  });
  a.register_hook([&](const Tensor& g) {
    seen.push_back(g.item<double>());
    return g + 1.0;
  });
  a.sum().backward();
  REQUIRE(seen == std::vector<double>{1, 2, 2});
  REQUIRE(values(x.grad()) == std::vector<double>{3});
}

TEST_CASE("a removed hook no longer runs", "[hooks]") {
  Tensor x = make({1});
  Tensor a = x * 1.0;
  int calls = 0;
  size_t leaf_hook = x.register_hook([&](const Tensor&) {
    ++calls;
    return Tensor();
  });
  size_t inner_hook = a.register_hook([&](const Tensor&) {
    ++calls;
    return Tensor();
  });
  x.remove_hook(leaf_hook);
  a.remove_hook(inner_hook);
  a.sum().backward();
  REQUIRE(calls == 0);
}

TEST_CASE("a hook on a tensor that does not require grad is an error", "[hooks]") {
  REQUIRE_THROWS_WITH(randn({2}).register_hook([](const Tensor& g) { return g; }),
                      Catch::Contains("doesn't require gradient"));
}

TEST_CASE("the hook of a leaf used several times sees the summed gradient once", "[hooks]") {
  Tensor x = make({1});
  int calls = 0;
  x.register_hook([&](const Tensor& g) {
    ++calls;
    REQUIRE(g.item<double>() == 6.0);
    return Tensor();
  });
  (x * 1.0 + x * 2.0 + x * 3.0).sum().backward();
  REQUIRE(calls == 1);
}

TEST_CASE("a post-accumulate-grad hook fires once per backward, after the final accumulation", "[hooks]") {
  Tensor w = make({2});
  std::vector<std::vector<double>> seen;
  w.register_post_accumulate_grad_hook([&](Tensor& param) { seen.push_back(values(param.grad())); });
  Tensor y = (w * 1.0).sum() + (w * 2.0).sum() + (w * w).sum() * 0.0;
  y.backward();
  REQUIRE(seen.size() == 1);
  REQUIRE(seen[0] == std::vector<double>{3, 3});
  (w * 4.0).sum().backward();
  REQUIRE(seen.size() == 2);
  REQUIRE(seen[1] == std::vector<double>{7, 7});
}

TEST_CASE("a post-accumulate-grad hook does not fire for autograd::grad", "[hooks]") {
  Tensor w = make({2});
  int calls = 0;
  w.register_post_accumulate_grad_hook([&](Tensor&) { ++calls; });
  autograd::grad({(w * 2.0).sum()}, {w});
  REQUIRE(calls == 0);
}

TEST_CASE("post-accumulate-grad hooks are for leaves only", "[hooks]") {
  Tensor a = make({2}) * 2.0;
  REQUIRE_THROWS_WITH(a.register_post_accumulate_grad_hook([](Tensor&) {}), Catch::Contains("leaf"));
}

TEST_CASE("a removed post-accumulate-grad hook no longer fires", "[hooks]") {
  Tensor w = make({2});
  int calls = 0;
  size_t handle = w.register_post_accumulate_grad_hook([&](Tensor&) { ++calls; });
  w.remove_hook(handle);
  (w * 2.0).sum().backward();
  REQUIRE(calls == 0);
}

TEST_CASE("a non-leaf has no .grad unless it retains it", "[hooks][retain_grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0, b = x * 3.0;
  b.retain_grad();
  REQUIRE(b.retains_grad());
  REQUIRE_FALSE(a.retains_grad());
  (a * b).sum().backward();
  REQUIRE_FALSE(a.grad().defined());
  REQUIRE(close(b.grad(), a.detach()));
}

TEST_CASE("a retained gradient accumulates over backward calls", "[hooks][retain_grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  a.retain_grad();
  Tensor y = (a * 3.0).sum();
  y.backward(Tensor(), true);
  y.backward();
  REQUIRE(values(a.grad()) == std::vector<double>{6, 6});
}

TEST_CASE("retain_grad keeps the gradient after all other hooks", "[hooks][retain_grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  a.retain_grad();
  a.register_hook([](const Tensor& g) { return g * 5.0; });
  a.sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{5, 5});
}

TEST_CASE("retain_grad on a leaf does nothing; on a tensor without grad it is an error", "[hooks][retain_grad]") {
  Tensor x = make({2});
  x.retain_grad();
  REQUIRE_FALSE(x.retains_grad());
  REQUIRE_THROWS_WITH(randn({2}).retain_grad(), Catch::Contains("requires_grad=false"));
}

TEST_CASE("a retain_grad hook does not keep its tensor alive", "[hooks][retain_grad]") {
  Tensor x = make({2});
  Tensor y;
  std::weak_ptr<TensorImpl> watched;
  {
    Tensor a = x * 2.0;
    a.retain_grad();
    watched = a.weak_impl();
    y = (a * 3.0).sum();
  }
  REQUIRE(watched.expired());
  y.backward();
  REQUIRE(values(x.grad()) == std::vector<double>{6, 6});
}

TEST_CASE("a hook's replacement is what autograd::grad returns", "[hooks][grad]") {
  Tensor x = make({2});
  Tensor a = x * 2.0;
  a.register_hook([](const Tensor& g) { return g * 0.0 - 1.0; });
  TensorList grads = autograd::grad({(a * 3.0).sum()}, {a, x});
  REQUIRE(values(grads[0]) == std::vector<double>{-1, -1});
  REQUIRE(values(grads[1]) == std::vector<double>{-2, -2});
}

}  // namespace
}  // namespace brisk::test
