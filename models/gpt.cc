#include "models/gpt.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::models {

namespace F = nn::functional;

namespace {

constexpr double kInitStd = 0.02;  // GPT-2's

}  // namespace

GPTImpl::GPTImpl(const GPTConfig& config_) : config(config_) {
  config.check();
  const int64_t C = config.n_embd();
  wte = register_module("wte", nn::Embedding(config.vocab_size(), C));
  wpe = register_module("wpe", nn::Embedding(config.block_size(), C));
  blocks = register_module("blocks", nn::ModuleList());
  for (int64_t i = 0; i < config.n_layer(); ++i) blocks->push_back(GPTBlock(config));
  ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({C})));

  NoGradGuard no_grad;
  nn::init::normal_(wte->weight, 0.0, kInitStd);
  nn::init::normal_(wpe->weight, 0.0, kInitStd);
  // Each block adds two projections to the residual stream: GPT-2 scales their weights so that
  // the stream's variance does not grow with depth.
  const double residual_std = kInitStd / std::sqrt(2.0 * static_cast<double>(config.n_layer()));
  auto init_linear = [](const nn::Linear& linear, double std) {
    nn::init::normal_(linear->weight, 0.0, std);
    nn::init::zeros_(linear->bias);
  };
  for (size_t i = 0; i < blocks->size(); ++i) {
    GPTBlockImpl& block = blocks->at<GPTBlockImpl>(i);
    for (const nn::Linear& linear : {block.attn->query, block.attn->key, block.attn->value, block.mlp->fc})
      init_linear(linear, kInitStd);
    init_linear(block.attn->proj, residual_std);
    init_linear(block.mlp->proj, residual_std);
  }
}

Tensor GPTImpl::forward(const Tensor& tokens) {
  BRISK_CHECK(tokens.dim() == 2 && tokens.dtype() == kInt64, "GPT: expected int64 tokens [B, T], got {}",
              tokens.describe());
  const int64_t T = tokens.size(1);
  BRISK_CHECK(T <= config.block_size(), "GPT: {} tokens are more than the model's block_size {}", T,
              config.block_size());
  Tensor positions = arange(0, T, TensorOptions(kInt64).device(tokens.device()));  // [T]
  Tensor x = wte(tokens) + wpe(positions);                                         // [B, T, C]
  for (size_t i = 0; i < blocks->size(); ++i) {
    GPTBlockImpl& block = blocks->at<GPTBlockImpl>(i);
    x = nn::forward_naming_module(block, [&] { return block.forward(x); });
  }
  return F::linear(ln_f(x), wte->weight);  // the tied head: [B, T, vocab_size]
}

Tensor gpt_loss(const Tensor& logits, const Tensor& targets) {
  const int64_t V = logits.size(-1);
  return F::cross_entropy(logits.reshape({-1, V}), targets.reshape({-1}));
}

}  // namespace brisk::models
