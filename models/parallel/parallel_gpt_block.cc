#include "models/parallel/parallel_gpt_block.h"

#include "nn/attention/scaled_dot_product_attention.h"
#include "nn/functional.h"
#include "tensor/error.h"

namespace brisk::models {

namespace F = nn::functional;
namespace tp = dist::tp;

namespace {

// The group's size must divide n_head, so that the column layers' split is a split by heads.
dist::GroupPtr checked_tp_group(const GPTConfig& config, dist::GroupPtr group) {
  if (!group) group = dist::default_group();
  BRISK_CHECK(config.n_head() % group->size() == 0,
              "ParallelGPT: n_head {} is not divisible by the tensor-parallel size {}: attention splits by heads",
              config.n_head(), group->size());
  return group;
}

}  // namespace

ParallelCausalSelfAttentionImpl::ParallelCausalSelfAttentionImpl(const GPTConfig& config, dist::GroupPtr tp_group)
    : head_dim(config.n_embd() / config.n_head()) {
  const dist::GroupPtr group = checked_tp_group(config, std::move(tp_group));
  const int64_t C = config.n_embd();
  query = register_module("query", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
  key = register_module("key", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
  value = register_module("value", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
  proj = register_module("proj", tp::RowParallelLinear(tp::RowParallelLinearOptions(C, C), group));
}

Tensor ParallelCausalSelfAttentionImpl::forward(const Tensor& x) {
  const int64_t B = x.size(0), T = x.size(1);
  // This rank's heads: [B, T, heads_r * head_dim] -> [B, heads_r, T, head_dim].
  auto heads = [&](const Tensor& t) { return t.view({B, T, t.size(2) / head_dim, head_dim}).transpose(1, 2); };
  Tensor q = heads(query(x)), k = heads(key(x)), v = heads(value(x));
  Tensor y = F::scaled_dot_product_attention(q, k, v, /*is_causal=*/true);
  y = y.transpose(1, 2).contiguous();
  return proj(y.view({B, T, y.size(2) * head_dim}));
}

ParallelGPTMLPImpl::ParallelGPTMLPImpl(const GPTConfig& config, dist::GroupPtr tp_group) {
  const dist::GroupPtr group = checked_tp_group(config, std::move(tp_group));
  const int64_t C = config.n_embd();
  fc = register_module("fc", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, 4 * C), group));
  proj = register_module("proj", tp::RowParallelLinear(tp::RowParallelLinearOptions(4 * C, C), group));
}

Tensor ParallelGPTMLPImpl::forward(const Tensor& x) { return proj(F::gelu(fc(x), "tanh")); }

ParallelGPTBlockImpl::ParallelGPTBlockImpl(const GPTConfig& config, dist::GroupPtr tp_group) {
  ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({config.n_embd()})));
  attn = register_module("attn", ParallelCausalSelfAttention(config, tp_group));
  ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({config.n_embd()})));
  mlp = register_module("mlp", ParallelGPTMLP(config, tp_group));
}

Tensor ParallelGPTBlockImpl::forward(const Tensor& x) {
  Tensor h = x + attn(ln_1(x));
  return h + mlp(ln_2(h));
}

}  // namespace brisk::models
