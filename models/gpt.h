#pragma once
// models::GPT: a decoder-only transformer over bytes, as GPT-2: token and position embeddings,
// n_layer pre-LayerNorm blocks (causal multi-head self-attention, an MLP with GELU), a final
// LayerNorm and an output head that is the token embedding itself (one Parameter, tied).
//
//   models::GPT model(models::GPTConfig::preset("tiny"));
//   Tensor logits = model->forward(tokens);             // int64 [B, T], T <= block_size -> [B, T, vocab_size]
//   Tensor loss = models::gpt_loss(logits, targets);    // mean cross-entropy over every position
//
// The blocks are an nn::ModuleList, so a pipeline cuts the model between them; the layers of
// each block are its own modules (models/gpt_block.h). Initialized as GPT-2: weights of the
// linear layers and embeddings from N(0, 0.02), the residual projections' (attn.proj and
// mlp.proj) from N(0, 0.02 / sqrt(2 n_layer)), biases zero, LayerNorms one and zero; drawn
// from brisk::default_generator(). No dropout. Sampling text: models/gpt_generate.h.
#include <cstdint>

#include "models/gpt_block.h"
#include "models/gpt_config.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/module_list.h"
#include "nn/modules/embedding.h"
#include "nn/modules/normalization.h"

namespace brisk::models {

class GPTImpl : public nn::Module {
 public:
  explicit GPTImpl(const GPTConfig& config = GPTConfig());

  // int64 tokens [B, T] with T <= block_size -> logits [B, T, vocab_size]: position t's
  // prediction of token t + 1.
  Tensor forward(const Tensor& tokens) override;

  GPTConfig config;
  nn::Embedding wte{nullptr};  // tokens [vocab_size, n_embd], also the output head's weight
  nn::Embedding wpe{nullptr};  // positions [block_size, n_embd]
  nn::ModuleList blocks;       // n_layer GPTBlocks
  nn::LayerNorm ln_f{nullptr};
};

BRISK_MODULE(GPT);

// The mean cross-entropy of logits [B, T, V] against int64 targets [B, T], in nats.
Tensor gpt_loss(const Tensor& logits, const Tensor& targets);

}  // namespace brisk::models
