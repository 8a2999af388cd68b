#pragma once
// The GPT block (models/gpt_block.h) split over a tensor-parallel group as Megatron-LM splits
// it: the query, key and value layers are ColumnParallelLinears split by heads (rank r computes
// its n_head / tp heads whole), attention runs on those heads, and the output projection is a
// RowParallelLinear whose all-reduce sums the heads' contributions; the MLP's fc is column- and
// its proj row-parallel, GELU between them on each rank's features. Two all-reduces per block
// in forward (the projections') and two in backward (the column layers' inputs).
//
//   models::ParallelGPTBlock block(config, tp_group);   // the same names as GPTBlock's
//   Tensor y = block->forward(x);   // x, y: [B, T, n_embd], whole on every rank of the group
//
// The LayerNorms and the row layers' biases are replicated: every rank holds them whole and
// computes the same gradient for them. n_head must be divisible by the group's size (the
// features' split, torch.chunk's, then falls on head boundaries); an error names both.
#include <cstdint>

#include "distributed/distributed.h"
#include "distributed/tensor_parallel/column_parallel_linear.h"
#include "distributed/tensor_parallel/row_parallel_linear.h"
#include "models/gpt_config.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/normalization.h"

namespace brisk::models {

class ParallelCausalSelfAttentionImpl : public nn::Module {
 public:
  ParallelCausalSelfAttentionImpl(const GPTConfig& config, dist::GroupPtr tp_group);

  // x [B, T, C] -> [B, T, C], whole on every rank.
  Tensor forward(const Tensor& x) override;

  int64_t head_dim;
  dist::tp::ColumnParallelLinear query{nullptr}, key{nullptr}, value{nullptr};  // [C] -> this rank's heads
  dist::tp::RowParallelLinear proj{nullptr};                                    // this rank's heads -> [C]
};

BRISK_MODULE(ParallelCausalSelfAttention);

class ParallelGPTMLPImpl : public nn::Module {
 public:
  ParallelGPTMLPImpl(const GPTConfig& config, dist::GroupPtr tp_group);

  Tensor forward(const Tensor& x) override;

  dist::tp::ColumnParallelLinear fc{nullptr};
  dist::tp::RowParallelLinear proj{nullptr};
};

BRISK_MODULE(ParallelGPTMLP);

class ParallelGPTBlockImpl : public nn::Module {
 public:
  ParallelGPTBlockImpl(const GPTConfig& config, dist::GroupPtr tp_group);

  Tensor forward(const Tensor& x) override;

  nn::LayerNorm ln_1{nullptr};
  ParallelCausalSelfAttention attn{nullptr};
  nn::LayerNorm ln_2{nullptr};
  ParallelGPTMLP mlp{nullptr};
};

BRISK_MODULE(ParallelGPTBlock);

}  // namespace brisk::models
