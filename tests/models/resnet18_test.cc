// models::ResNet18 (CIFAR variant) against its PyTorch twin: names and shapes, parameter count
// and forward at full width; float64 training parity at width 16, the same code at 1/16 of
// the cost (tests/fixtures/resnet18.safetensors, written by
// tools/fixtures/gen_cifar_models_fixtures.py).
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "models/resnet18.h"
#include "tests/models/count_parameters.h"
#include "tests/models/model_fixture.h"

using namespace brisk;
using brisk::test::count_parameters;
using brisk::test::ModelFixture;

namespace {

models::ResNet18 width16() { return models::ResNet18(models::ResNet18Options().width(16)); }

}  // namespace

TEST_CASE("ResNet18: 11,173,962 parameters under PyTorch's names and shapes; projection shortcuts") {
  ModelFixture fixture("resnet18.safetensors");
  models::ResNet18 model;
  REQUIRE(count_parameters(*model) == 11173962);
  fixture.check_layout(*model, "resnet18");
  fixture.check_layout(*width16(), "resnet18_width16");
  REQUIRE(count_parameters(*width16()) == 701466);
  REQUIRE(model->layer1->size() == 2);
  REQUIRE(model->state_dict().contains("layer2.0.shortcut.0.weight"));
  REQUIRE(!model->state_dict().contains("layer1.0.shortcut.0.weight"));
  models::ResNet18 hundred(models::ResNet18Options().num_classes(100).width(8));
  REQUIRE(hundred->forward(randn({2, 3, 32, 32})).sizes() == Shape{2, 100});
}

TEST_CASE("ResNet18: forward in float32 matches PyTorch, in training and eval mode") {
  ModelFixture fixture("resnet18.safetensors");
  fixture.check_forward(*models::ResNet18(), "resnet18");
  fixture.check_forward(*width16(), "resnet18_width16");
}

TEST_CASE("ResNet18: float64 training parity with PyTorch at width 16") {
  ModelFixture fixture("resnet18.safetensors");
  fixture.check_training_parity(*width16(), "resnet18_width16");
}
