// brisk::save / brisk::load (libtorch's torch::save / torch::load): round trips of a module, a
// tensor, a list of tensors and an optimizer whose training then continues bitwise as if it
// had never stopped; errors that name the file, the key and the shapes.
#include "checkpoint/serialize.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tests/scratch_files.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {

nn::Sequential make_model(uint64_t seed, int64_t hidden = 8) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(4, hidden), nn::BatchNorm1d(hidden), nn::ReLU(), nn::Linear(hidden, 3));
}

// Step i trains on its own batch.
void train_step(nn::Sequential& model, optim::Optimizer& optimizer, int i) {
  Generator gen(100 + i);
  Tensor x = randn({16, 4}, {}, &gen);
  Tensor y = randint(0, 3, {16}, kInt64, &gen);
  optimizer.zero_grad();
  nn::functional::cross_entropy(model(x), y).backward();
  optimizer.step();
}

std::string scratch(const std::string& file) { return testing::scratch_dir("serialize") + "/" + file; }

}  // namespace

TEST_CASE("save / load a model and its optimizer: training continues bitwise", "[checkpoint][serialize]") {
  auto adamw = [](nn::Sequential& m) {
    return std::make_unique<optim::AdamW>(m->parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  };
  auto sgd = [](nn::Sequential& m) {
    return std::make_unique<optim::SGD>(m->parameters(), optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  };
  for (const auto& make_optimizer : {std::function<std::unique_ptr<optim::Optimizer>(nn::Sequential&)>(adamw),
                                     std::function<std::unique_ptr<optim::Optimizer>(nn::Sequential&)>(sgd)}) {
    nn::Sequential straight = make_model(1);
    auto straight_optimizer = make_optimizer(straight);
    for (int i = 0; i < 6; ++i) train_step(straight, *straight_optimizer, i);

    nn::Sequential first = make_model(1);
    auto first_optimizer = make_optimizer(first);
    for (int i = 0; i < 3; ++i) train_step(first, *first_optimizer, i);
    std::string model_path = scratch("model.pt"), optimizer_path = scratch("optimizer.pt");
    save(first, model_path);
    save(*first_optimizer, optimizer_path);

    nn::Sequential resumed = make_model(2);  // other initial weights, which load replaces
    auto resumed_optimizer = make_optimizer(resumed);
    load(resumed, model_path);
    load(*resumed_optimizer, optimizer_path);
    for (int i = 3; i < 6; ++i) train_step(resumed, *resumed_optimizer, i);
    INFO(straight_optimizer->name());
    for (const auto& item : straight->state_dict()) {
      INFO(item.key());
      CHECK(equal(resumed->state_dict().at(item.key()), item.value()));
    }
  }
}

TEST_CASE("save / load a module through a holder or a shared_ptr", "[checkpoint][serialize]") {
  manual_seed(3);
  nn::Linear saved(3, 2);
  std::string path = scratch("linear.st");
  save(saved, path);
  std::shared_ptr<nn::LinearImpl> loaded = nn::Linear(3, 2).ptr();
  load(loaded, path);
  CHECK(equal(loaded->weight, saved->weight));
  CHECK(equal(loaded->bias, saved->bias));
  CHECK(loaded->weight.requires_grad());
  save(loaded, path);
}

TEST_CASE("save / load tensors and lists of tensors", "[checkpoint][serialize]") {
  std::string path = scratch("tensor.st");
  for (Tensor t : {arange(0, 12, 1, kFloat32).view({3, 4}), tensor<int64_t>({-5, 7}), ones({2}).to(kBFloat16),
                   scalar_tensor(2.5, kFloat64), arange(0, 6, 1, kFloat32).view({2, 3}).t()}) {
    save(t, path);
    Tensor back;
    load(back, path);
    INFO(t.describe());
    CHECK(back.dtype() == t.dtype());
    CHECK(equal(back, t));
  }

  std::string list_path = scratch("tensors.st");
  std::vector<Tensor> list = {randn({2, 2}), tensor<int64_t>({1, 2, 3}), zeros({0})};
  save(list, list_path);
  std::vector<Tensor> back = {ones({1})};
  load(back, list_path);
  REQUIRE(back.size() == 3);
  for (size_t i = 0; i < list.size(); ++i) CHECK(equal(back[i], list[i]));
  save(std::vector<Tensor>{}, list_path);
  load(back, list_path);
  CHECK(back.empty());
  CHECK_THROWS_WITH(save(std::vector<Tensor>{ones({1}), Tensor()}, list_path), Contains("tensor 1 of 2 is undefined"));
}

TEST_CASE("load names the file, the key and the shapes that do not fit", "[checkpoint][serialize]") {
  nn::Sequential model = make_model(1);
  std::string path = scratch("mismatch.st");
  save(model, path);

  nn::Sequential wider = make_model(1, 9);
  CHECK_THROWS_WITH(load(wider, path), Contains("load '" + path + "'") && Contains("size mismatch for 0.weight") &&
                                           Contains("[8, 4]") && Contains("[9, 4]"));
  nn::Linear other(4, 8);
  CHECK_THROWS_WITH(load(other, path), Contains("load '" + path + "'") && Contains("1.running_mean"));

  Tensor t;
  CHECK_THROWS_WITH(load(t, path), Contains("load '" + path + "': the file holds a module, not a tensor"));
  CHECK_THROWS_WITH(load(t, scratch("absent.st")), Contains(scratch("absent.st")));

  optim::AdamW adamw(model->parameters(), optim::AdamWOptions(0.01));
  train_step(model, adamw, 0);
  std::string optimizer_path = scratch("adamw.st");
  save(adamw, optimizer_path);
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1));
  CHECK_THROWS_WITH(load(sgd, optimizer_path),
                    Contains("load '" + optimizer_path + "': the file holds the state of optimizer AdamW, not of SGD"));
  optim::AdamW fewer(wider->parameters(), optim::AdamWOptions(0.01));
  CHECK_THROWS_WITH(load(fewer, optimizer_path), Contains("load '" + optimizer_path + "'") && Contains("state.0"));
  CHECK_THROWS_WITH(load(model, optimizer_path), Contains("the file holds an optimizer, not a module"));
}
