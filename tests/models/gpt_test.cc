// models::GPT: its presets' parameter counts (the formula of models/gpt_config.h), the tied
// output head, causality, the errors, registry access, and sampling (models/gpt_generate.h).
#include "models/gpt.h"

#include <catch2/catch.hpp>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "models/gpt_generate.h"
#include "models/registry.h"
#include "tests/models/count_parameters.h"

namespace brisk::models {
namespace {

using brisk::test::count_parameters;
using Catch::Matchers::Contains;

TEST_CASE("GPT: each preset has the parameter count of the formula; the head is the token embedding") {
  for (const std::string& name : {"tiny", "mini"}) {
    INFO(name);
    const GPTConfig config = GPTConfig::preset(name);
    GPT model(config);
    CHECK(count_parameters(*model) == config.parameter_count());
  }
  CHECK(GPTConfig::preset("tiny").parameter_count() == 120576);
  CHECK(GPTConfig::preset("base").parameter_count() >= 100'000'000);
  // The counts leave out a head of its own: its gradient reaches the token embedding.
  manual_seed(3);
  GPT model(GPTConfig::preset("tiny"));
  CHECK(model->blocks->size() == 2);
  model->forward(zeros({1, 1}, kInt64)).select(2, 7).sum().backward();
  CHECK(model->wte->weight.grad().select(0, 7).abs().sum().item<double>() > 0);  // token 0 was the input, not 7
  CHECK_THROWS_WITH(GPTConfig::preset("huge"), Contains("unknown GPT size \"huge\" (expected one of tiny, mini"));
  CHECK_THROWS_WITH(GPT(GPTConfig().n_embd(30).n_head(4)), Contains("n_embd 30 is not a multiple of n_head 4"));
}

TEST_CASE("GPT: logits [B, T, 256]; a position's logits do not depend on later tokens") {
  manual_seed(1);
  GPT model(GPTConfig::preset("tiny"));
  Tensor tokens = randint(0, 256, {2, 10});
  Tensor logits = model->forward(tokens);
  REQUIRE(logits.sizes() == Shape{2, 10, 256});
  Tensor changed = tokens.clone();
  changed.select(1, 7).fill_(3);
  changed.select(1, 9).fill_(200);
  Tensor again = model->forward(changed);
  CHECK(allclose(again.narrow(1, 0, 7), logits.narrow(1, 0, 7).detach(), 1e-6, 1e-6));
  CHECK_FALSE(allclose(again.narrow(1, 7, 1), logits.narrow(1, 7, 1).detach(), 1e-6, 1e-6));
  CHECK_THROWS_WITH(model->forward(zeros({1, 65}, kInt64)),
                    Contains("65 tokens are more than the model's block_size 64"));
  CHECK_THROWS_WITH(model->forward(zeros({1, 5})), Contains("expected int64 tokens [B, T]"));
  // The loss at initialization is about ln 256 (nearly uniform predictions).
  CHECK(gpt_loss(logits, randint(0, 256, {2, 10})).item<double>() == Approx(std::log(256.0)).epsilon(0.05));
}

TEST_CASE("the registry makes GPT as a language model, and make_model refuses it") {
  CHECK(is_language_model("gpt"));
  CHECK_FALSE(is_language_model("lenet"));
  std::shared_ptr<nn::Module> gpt = make_language_model("gpt", GPTConfig::preset("tiny"));
  CHECK(gpt->forward(zeros({1, 4}, kInt64)).sizes() == Shape{1, 4, 256});
  CHECK(shard_units("gpt", *gpt).size() == 2);  // its blocks
  CHECK_THROWS_WITH(make_model("gpt", ImageShape{1, 28, 28}, 10), Contains("--model gpt is a language model"));
  CHECK_THROWS_WITH(make_language_model("lenet", GPTConfig()), Contains("--model lenet is an image model"));
}

TEST_CASE("generate: the prompt and then new tokens; one seed, one text; top_k 1 is greedy") {
  manual_seed(2);
  GPT model(GPTConfig::preset("tiny").block_size(8));
  const std::vector<int64_t> prompt{72, 105};
  Generator a(5), b(5);
  std::vector<int64_t> first = generate(*model, prompt, 12, SamplingOptions(), a);
  REQUIRE(first.size() == 14);
  CHECK(std::vector<int64_t>(first.begin(), first.begin() + 2) == prompt);
  CHECK(generate(*model, prompt, 12, SamplingOptions(), b) == first);  // contexts beyond block_size are cropped
  Generator c(6);
  std::vector<int64_t> greedy = generate(*model, prompt, 3, SamplingOptions().top_k(1).temperature(0.5), c);
  NoGradGuard no_grad;
  Tensor logits = model->forward(tensor(prompt, Shape{1, 2}));
  CHECK(greedy[2] == logits.select(1, 1).argmax(-1).item<int64_t>());
  CHECK_THROWS_WITH(generate(*model, {}, 1, SamplingOptions(), c), Contains("at least one token"));
  CHECK_THROWS_WITH(generate(*model, prompt, 1, SamplingOptions().temperature(0), c),
                    Contains("temperature must be positive"));
}

}  // namespace
}  // namespace brisk::models
