#include "models/gpt_block.h"

#include "nn/attention/scaled_dot_product_attention.h"
#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const GPTConfig& config)
    : head_dim(config.n_embd() / config.n_head()) {
  const int64_t C = config.n_embd();
  query = register_module("query", nn::Linear(C, C));
  key = register_module("key", nn::Linear(C, C));
  value = register_module("value", nn::Linear(C, C));
  proj = register_module("proj", nn::Linear(C, C));
}

Tensor CausalSelfAttentionImpl::forward(const Tensor& x) {
  const int64_t B = x.size(0), T = x.size(1);
  // [B, T, heads * head_dim] -> [B, heads, T, head_dim]; heads: those this query layer makes.
  auto heads = [&](const Tensor& t) { return t.view({B, T, t.size(2) / head_dim, head_dim}).transpose(1, 2); };
  Tensor q = heads(query(x)), k = heads(key(x)), v = heads(value(x));
  Tensor y = F::scaled_dot_product_attention(q, k, v, /*is_causal=*/true);  // [B, heads, T, head_dim]
  y = y.transpose(1, 2).contiguous();
  return proj(y.view({B, T, y.size(2) * head_dim}));
}

GPTMLPImpl::GPTMLPImpl(const GPTConfig& config) {
  const int64_t C = config.n_embd();
  fc = register_module("fc", nn::Linear(C, 4 * C));
  proj = register_module("proj", nn::Linear(4 * C, C));
}

Tensor GPTMLPImpl::forward(const Tensor& x) { return proj(F::gelu(fc(x), "tanh")); }

GPTBlockImpl::GPTBlockImpl(const GPTConfig& config) {
  ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({config.n_embd()})));
  attn = register_module("attn", CausalSelfAttention(config));
  ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({config.n_embd()})));
  mlp = register_module("mlp", GPTMLP(config));
}

Tensor GPTBlockImpl::forward(const Tensor& x) {
  Tensor h = x + attn(ln_1(x));
  return h + mlp(ln_2(h));
}

}  // namespace brisk::models
