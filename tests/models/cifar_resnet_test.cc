// models::CIFARResNet (ResNet-20/32/56) against its PyTorch twin: names and shapes, parameter
// counts, forward, and float64 training parity (tests/fixtures/cifar_resnet.safetensors, written
// by tools/fixtures/gen_cifar_models_fixtures.py).
#include <catch2/catch.hpp>

#include <string>

#include "autograd/ops.h"
#include "models/cifar_resnet.h"
#include "tensor/error.h"
#include "tests/models/count_parameters.h"
#include "tests/models/model_fixture.h"

using namespace brisk;
using brisk::test::count_parameters;
using brisk::test::ModelFixture;

namespace {

models::CIFARResNet make(const std::string& name) {
  if (name == "resnet20") return models::resnet20();
  if (name == "resnet32") return models::resnet32();
  return models::resnet56();
}

}  // namespace

TEST_CASE("CIFARResNet: the paper's parameter counts (option A shortcuts) under PyTorch's names and shapes") {
  ModelFixture fixture("cifar_resnet.safetensors");
  REQUIRE(count_parameters(*models::resnet20()) == 269722);
  REQUIRE(count_parameters(*models::resnet32()) == 464154);
  REQUIRE(count_parameters(*models::resnet56()) == 853018);
  for (const std::string name : {"resnet20", "resnet32", "resnet56"}) {
    INFO(name);
    fixture.check_layout(*make(name), name);
  }
  models::CIFARResNet hundred = models::resnet20(100);
  REQUIRE(count_parameters(*hundred) == 269722 + 90 * 65);
  REQUIRE(hundred->forward(randn({2, 3, 32, 32})).sizes() == Shape{2, 100});
}

TEST_CASE("CIFARResNet: depth must be 6n + 2") {
  REQUIRE(models::CIFARResNet(models::CIFARResNetOptions(8))->layer1->size() == 1);
  REQUIRE(models::CIFARResNet(models::CIFARResNetOptions(110))->layer3->size() == 18);
  REQUIRE_THROWS_WITH(models::CIFARResNet(models::CIFARResNetOptions(18)),
                      Catch::Contains("depth must be 6n + 2") && Catch::Contains("got 18"));
  REQUIRE_THROWS_AS(models::CIFARResNet(models::CIFARResNetOptions(2)), Error);
}

TEST_CASE("CIFARResNet: forward in float32 matches PyTorch, in training and eval mode") {
  ModelFixture fixture("cifar_resnet.safetensors");
  for (const std::string name : {"resnet20", "resnet32", "resnet56"}) {
    INFO(name);
    fixture.check_forward(*make(name), name);
  }
}

TEST_CASE("CIFARResNet: float64 training parity with PyTorch (SGD with Nesterov momentum and weight decay)") {
  ModelFixture fixture("cifar_resnet.safetensors");
  for (const std::string name : {"resnet20", "resnet32", "resnet56"}) {
    INFO(name);
    fixture.check_training_parity(*make(name), name);
  }
}
