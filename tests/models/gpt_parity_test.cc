// models::GPT against its PyTorch twin (models/torch_twins.py) in float64, from
// tests/fixtures/gpt.safetensors (tools/fixtures/gen_gpt_fixtures.py, whose docstring lists
// the keys): the state_dict's layout, the logits, the loss, every parameter's gradient, and
// every parameter and the loss after one AdamW step.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "autograd/ops.h"
#include "checkpoint/safetensors.h"
#include "models/gpt.h"
#include "optim/adam.h"
#include "tests/models/model_fixture.h"
#include "tests/models/pattern_weights.h"

namespace brisk::models {
namespace {

constexpr double kTolerance = 1e-12;  // of |got - want| against 1 + |want|, elementwise

void require_close(const Tensor& got, const Tensor& want, const std::string& what) {
  INFO(what << ": got " << got.describe() << ", PyTorch " << want.describe());
  REQUIRE(got.sizes() == want.sizes());
  const double worst = ((got - want).abs() / (want.abs() + 1.0)).max().item<double>();
  INFO("largest relative difference " << worst);
  REQUIRE(worst <= kTolerance);
}

TEST_CASE("GPT in float64: logits, loss, every gradient and one AdamW step equal PyTorch's") {
  const checkpoint::Safetensors fixture = checkpoint::load_safetensors("tests/fixtures/gpt.safetensors");
  auto entry = [&](const std::string& key) -> const Tensor& {
    INFO("fixture entry " << key);
    REQUIRE(fixture.tensors.contains(key));
    return fixture.tensors.at(key);
  };
  const std::vector<int64_t> sizes = entry("gpt.config").to_vector<int64_t>();
  GPT model(GPTConfig().vocab_size(sizes[0]).block_size(sizes[1]).n_layer(sizes[2]).n_head(sizes[3]).n_embd(sizes[4]));
  test::ModelFixture("gpt.safetensors").check_layout(*model, "gpt");
  model->to(kFloat64);
  test::set_pattern_weights(*model);

  Tensor logits = model->forward(entry("gpt.tokens"));
  require_close(logits, entry("gpt.logits"), "logits");
  Tensor loss = gpt_loss(logits, entry("gpt.targets"));
  require_close(loss.reshape({1}), entry("gpt.loss"), "loss");
  loss.backward();
  for (const auto& [name, parameter] : model->named_parameters()) {
    require_close(parameter.grad(), entry("gpt.grad." + name), "the gradient of " + name);
  }

  const std::vector<double> h = entry("gpt.adamw").to_vector<double>();  // lr, beta1, beta2, eps, weight_decay
  optim::AdamW adamw(model->parameters(), optim::AdamWOptions(h[0]).betas({h[1], h[2]}).eps(h[3]).weight_decay(h[4]));
  adamw.step();
  for (const auto& [name, parameter] : model->named_parameters()) {
    require_close(parameter.detach(), entry("gpt.step." + name), name + " after the AdamW step");
  }
  require_close(gpt_loss(model->forward(entry("gpt.tokens")), entry("gpt.targets")).detach().reshape({1}),
                entry("gpt.step.loss"), "the loss after the step");
}

}  // namespace
}  // namespace brisk::models
