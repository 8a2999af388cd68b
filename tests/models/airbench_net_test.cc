// models::AirbenchNet against its PyTorch twin: names and shapes, parameter count, airbench's
// initialization of the groups, forward, and float64 training parity
// (tests/fixtures/airbench_net.safetensors, written by tools/fixtures/gen_cifar_models_fixtures.py).
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "models/airbench_net.h"
#include "tests/models/count_parameters.h"
#include "tests/models/model_fixture.h"

using namespace brisk;
using brisk::test::count_parameters;
using brisk::test::ModelFixture;

TEST_CASE("AirbenchNet: 1,972,792 parameters under PyTorch's names and shapes; configurable widths") {
  ModelFixture fixture("airbench_net.safetensors");
  models::AirbenchNet model;
  REQUIRE(count_parameters(*model) == 1972792);
  fixture.check_layout(*model, "airbench");
  REQUIRE(model->group3->norm2->options.eps() == 1e-12);
  REQUIRE(model->group3->norm2->options.momentum() == 0.4);

  models::AirbenchNet small(models::AirbenchNetOptions().widths({8, 16, 32}).num_classes(5));
  const int64_t convs = 3 * 24 * 4 + 24 + 9 * (24 * 8 + 8 * 8 + 8 * 16 + 16 * 16 + 16 * 32 + 32 * 32);
  REQUIRE(count_parameters(*small) == convs + 4 * (8 + 16 + 32) + 32 * 5);
  REQUIRE(small->forward(randn({3, 3, 32, 32})).sizes() == Shape{3, 5});
}

namespace {

// [n, n, 3, 3] filters of which filter i passes channel i through.
Tensor identity_filters(int64_t n) {
  Tensor w = zeros({n, n, 3, 3});
  for (int64_t i = 0; i < n; ++i) w[i][i][1][1].fill_(1.0);
  return w;
}

}  // namespace

TEST_CASE("AirbenchNet: each group's convolutions start with identity filters (dirac_), as airbench") {
  models::AirbenchNet model;
  Tensor widening = model->group2->conv1->weight;  // [256, 64, 3, 3]: the first 64 filters
  REQUIRE(equal(widening.narrow(0, 0, 64), identity_filters(64)));
  REQUIRE(widening.narrow(0, 64, 192).abs().sum().item<float>() > 0.0f);  // the rest as PyTorch's default
  REQUIRE(equal(model->group3->conv2->weight, identity_filters(256)));
}

TEST_CASE("AirbenchNet: forward in float32 matches PyTorch, in training and eval mode") {
  ModelFixture fixture("airbench_net.safetensors");
  fixture.check_forward(*models::AirbenchNet(), "airbench");
}

TEST_CASE("AirbenchNet: float64 training parity with PyTorch (SGD with Nesterov momentum and weight decay)") {
  ModelFixture fixture("airbench_net.safetensors");
  fixture.check_training_parity(*models::AirbenchNet(), "airbench");
}
