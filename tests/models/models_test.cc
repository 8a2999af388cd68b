// The reference models: output shapes, parameter names and counts, and forward passes
// against PyTorch for the same weights (tests/fixtures/models_forward.safetensors, written by
// tools/fixtures/gen_models_fixtures.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "checkpoint/safetensors.h"
#include "models/lenet.h"
#include "models/mlp.h"
#include "tests/models/count_parameters.h"
#include "tests/models/pattern_weights.h"

using namespace brisk;
using brisk::test::count_parameters;
using brisk::test::set_pattern_weights;

namespace {

void require_close(const Tensor& got, const Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": got " << g[i] << ", PyTorch " << w[i]);
    REQUIRE(std::abs(g[i] - w[i]) <= 1e-5f + 1e-4f * std::abs(w[i]));
  }
}

}  // namespace

TEST_CASE("LeNet5: 61,706 parameters under PyTorch's names; [N, 1, 28, 28] -> [N, classes]") {
  models::LeNet5 model;
  REQUIRE(count_parameters(*model) == 61706);
  REQUIRE(model->state_dict().keys() == std::vector<std::string>{"conv1.weight", "conv1.bias", "conv2.weight",
                                                                 "conv2.bias", "fc1.weight", "fc1.bias", "fc2.weight",
                                                                 "fc2.bias", "fc3.weight", "fc3.bias"});
  REQUIRE(model->forward(randn({5, 1, 28, 28})).sizes() == Shape{5, 10});
  models::LeNet5 three(3);
  REQUIRE(three->forward(randn({2, 1, 28, 28})).sizes() == Shape{2, 3});
  REQUIRE(count_parameters(*three) == 61706 - 7 * 85);
}

TEST_CASE("MLP: 784-256-128-10 by default; flattens images; configurable widths") {
  models::MLP model;
  REQUIRE(count_parameters(*model) == 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  REQUIRE(model->state_dict().keys() == std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.1.weight",
                                                                 "layers.1.bias", "layers.2.weight", "layers.2.bias"});
  REQUIRE(model->forward(randn({4, 1, 28, 28})).sizes() == Shape{4, 10});
  REQUIRE(model->forward(randn({4, 784})).sizes() == Shape{4, 10});
  models::MLP narrow(models::MLPOptions(12, 3).hidden({5}));
  REQUIRE(count_parameters(*narrow) == 12 * 5 + 5 + 5 * 3 + 3);
  REQUIRE(narrow->forward(randn({2, 12})).sizes() == Shape{2, 3});
}

TEST_CASE("LeNet5 and MLP forward match PyTorch for the same weights") {
  checkpoint::Safetensors fixture = checkpoint::load_safetensors("tests/fixtures/models_forward.safetensors");
  const Tensor& images = fixture.tensors["images"];
  REQUIRE(images.sizes() == Shape{3, 1, 28, 28});
  autograd::NoGradGuard no_grad;

  models::LeNet5 lenet;
  set_pattern_weights(*lenet);
  require_close(lenet->forward(images), fixture.tensors["lenet.logits"]);

  models::MLP mlp;
  set_pattern_weights(*mlp);
  require_close(mlp->forward(images), fixture.tensors["mlp.logits"]);
}

TEST_CASE("LeNet5: gradients reach every parameter") {
  models::LeNet5 model;
  model->forward(randn({2, 1, 28, 28})).square().sum().backward();
  for (const auto& [name, p] : model->named_parameters()) {
    INFO(name);
    REQUIRE(p.grad().defined());
    REQUIRE(p.grad().sizes() == p.sizes());
  }
}
