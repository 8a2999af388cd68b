// The models by name (models/registry.h): each with its parameter count and output shape, the
// MLP sized from the images, the errors that name what was wrong, and each model's fully_shard units.
#include "models/registry.h"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "tests/models/count_parameters.h"

using namespace brisk;
using namespace brisk::models;
using brisk::test::count_parameters;

TEST_CASE("make_model: lenet and mlp, with their parameter counts; other names are errors") {
  const ImageShape mnist{1, 28, 28};
  std::shared_ptr<nn::Module> lenet = make_model("lenet", mnist, 10);
  REQUIRE(count_parameters(*lenet) == 61706);
  REQUIRE(lenet->forward(zeros({2, 1, 28, 28})).sizes() == Shape{2, 10});
  std::shared_ptr<nn::Module> mlp = make_model("mlp", mnist, 10);
  REQUIRE(count_parameters(*mlp) == 235146);
  REQUIRE(mlp->forward(zeros({2, 1, 28, 28})).sizes() == Shape{2, 10});
  REQUIRE_THROWS_WITH(make_model("resnet", mnist, 10),
                      Catch::Contains("unknown model \"resnet\" (expected one of lenet, mlp"));
}

TEST_CASE("make_model: the MLP sizes itself from the images; a model that does not take them is an error") {
  const ImageShape cifar{3, 32, 32};
  std::shared_ptr<nn::Module> mlp = make_model("mlp", cifar, 10);
  REQUIRE(count_parameters(*mlp) == 3072 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
  REQUIRE(mlp->forward(zeros({2, 3, 32, 32})).sizes() == Shape{2, 10});
  REQUIRE(model_input("lenet") == ImageShape{1, 28, 28});
  REQUIRE_FALSE(model_input("mlp").has_value());
  REQUIRE_THROWS_WITH(make_model("lenet", cifar, 10),
                      Catch::Contains("--model lenet takes 1x28x28 images, and the dataset's are 3x32x32; models for "
                                      "them: mlp, resnet20, resnet32, resnet56, resnet18, airbench"));
  REQUIRE_THROWS_WITH(make_model("resnet20", ImageShape{1, 28, 28}, 10),
                      Catch::Contains("--model resnet20 takes 3x32x32 images, and the dataset's are 1x28x28; models "
                                      "for them: lenet, mlp"));
}

TEST_CASE("make_model: the CIFAR models, with their parameter counts") {
  const ImageShape cifar{3, 32, 32};
  const std::vector<std::pair<std::string, int64_t>> models{
      {"resnet20", 269722}, {"resnet32", 464154}, {"resnet56", 853018}, {"resnet18", 11173962}, {"airbench", 1972792}};
  for (const auto& [name, parameters] : models) {
    INFO(name);
    REQUIRE(model_input(name) == cifar);
    std::shared_ptr<nn::Module> model = make_model(name, cifar, 10);
    CHECK(count_parameters(*model) == parameters);
    model->eval();
    CHECK(model->forward(zeros({2, 3, 32, 32})).sizes() == Shape{2, 10});
  }
}

TEST_CASE("shard_units: each model's fully_shard units, none holding another, the root not among them") {
  const ImageShape mnist{1, 28, 28}, cifar{3, 32, 32};
  const std::vector<std::pair<std::string, size_t>> expected{
      {"lenet", 5}, {"mlp", 3}, {"resnet20", 9}, {"resnet18", 8}, {"airbench", 3}};
  for (const auto& [name, count] : expected) {
    INFO(name);
    std::shared_ptr<nn::Module> model = make_model(name, name == "lenet" || name == "mlp" ? mnist : cifar, 10);
    std::vector<std::shared_ptr<nn::Module>> units = shard_units(name, *model);
    CHECK(units.size() == count);
    for (const auto& unit : units) {
      CHECK(unit != model);
      for (const auto& other : units) {
        if (other == unit) continue;
        for (const auto& below : unit->modules(/*include_self=*/false)) CHECK(below != other);
      }
    }
  }
}
