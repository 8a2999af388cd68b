#pragma once
// The parts of the GPT reference model (models/gpt.h): causal multi-head self-attention, the
// MLP and the pre-LayerNorm block around them.
//
//   models::GPTBlock block(models::GPTConfig::preset("tiny"));
//   Tensor y = block->forward(x);  // x [B, T, n_embd] -> [B, T, n_embd]
//
// Each linear layer is its own module (query, key, value and proj; fc and proj), so that
// tensor parallelism can replace them with split ones: attention takes its number of heads
// from the width its query layer returns, so a query split by heads runs its share of them.
#include <cstdint>

#include "models/gpt_config.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/linear.h"
#include "nn/modules/normalization.h"

namespace brisk::models {

// Multi-head self-attention under the causal mask: each position sees itself and the
// positions before it. The heads run in one fused op, scaled_dot_product_attention
// (nn/attention/).
class CausalSelfAttentionImpl : public nn::Module {
 public:
  explicit CausalSelfAttentionImpl(const GPTConfig& config);

  // x [B, T, C] -> [B, T, C].
  Tensor forward(const Tensor& x) override;

  int64_t head_dim;                                         // n_embd / n_head
  nn::Linear query{nullptr}, key{nullptr}, value{nullptr};  // [C] -> [n_head * head_dim] each
  nn::Linear proj{nullptr};                                 // the heads' outputs back to [C]
};

BRISK_MODULE(CausalSelfAttention);

// Linear to 4 * n_embd, GELU (its tanh approximation, as GPT-2), linear back.
class GPTMLPImpl : public nn::Module {
 public:
  explicit GPTMLPImpl(const GPTConfig& config);

  Tensor forward(const Tensor& x) override;

  nn::Linear fc{nullptr}, proj{nullptr};
};

BRISK_MODULE(GPTMLP);

// x + attn(ln_1(x)), then that + mlp(ln_2(that)): pre-LayerNorm, as GPT-2.
class GPTBlockImpl : public nn::Module {
 public:
  explicit GPTBlockImpl(const GPTConfig& config);

  Tensor forward(const Tensor& x) override;

  nn::LayerNorm ln_1{nullptr};
  CausalSelfAttention attn{nullptr};
  nn::LayerNorm ln_2{nullptr};
  GPTMLP mlp{nullptr};
};

BRISK_MODULE(GPTBlock);

}  // namespace brisk::models
