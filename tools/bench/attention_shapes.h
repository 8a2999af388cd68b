#pragma once
// The attention benchmark's shapes [batch, heads, length, head_dim], causal, float32; the same
// list is in attention_bench_torch.py.
#include <cstdint>

namespace brisk::bench {

struct AttentionShape {
  const char* name;
  int64_t batch, heads, length, head_dim;
};

inline constexpr AttentionShape kAttentionShapes[] = {
    {"gpt_mini_b8_h4_t128_d32", 8, 4, 128, 32},   // the mini preset's attention
    {"gpt_small_b4_h6_t256_d64", 4, 6, 256, 64},  // the small preset's
    {"long_b1_h8_t1024_d64", 1, 8, 1024, 64},     // GPT-2's context
};

}  // namespace brisk::bench
