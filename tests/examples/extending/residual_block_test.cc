#include <catch2/catch.hpp>

#include "examples/extending/residual_block.h"

namespace brisk::examples {
namespace {

TEST_CASE("a residual block built from modules trains, saves and converts like any module") {
  manual_seed(1);
  ResidualBlock identity(4, 4);
  ResidualBlock down(4, 8, 2);
  CHECK(identity->projection.is_empty());
  CHECK(down->named_children().keys() == std::vector<std::string>{"conv1", "bn1", "conv2", "bn2", "projection"});

  Tensor x = randn({2, 4, 6, 6}).requires_grad_();
  Tensor y = down(identity(x));
  CHECK(y.sizes() == Shape{2, 8, 3, 3});
  // relu at the end.
  CHECK(y.amin().item<float>() >= 0);
  y.sum().backward();
  CHECK(x.grad().defined());
  for (const auto& [name, p] : down->named_parameters()) {
    INFO(name);
    CHECK(p.grad().defined());
  }
  CHECK(down->state_dict().contains("projection.1.running_mean"));

  // Without the shortcut's projection, the identity block adds its input back.
  identity->eval();
  {
    NoGradGuard no_grad;
    for (const Tensor& p : identity->parameters()) p.mutable_grad() = Tensor();
    nn::init::zeros_(identity->bn2->weight);
    Tensor z = relu(x.detach());
    CHECK(allclose(identity(x.detach()), z));
  }
  down->to(kFloat64);
  CHECK(down(randn({1, 4, 6, 6}, kFloat64)).dtype() == kFloat64);
}

}  // namespace
}  // namespace brisk::examples
