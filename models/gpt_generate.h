#pragma once
// Sampling text from a GPT (models/gpt.h), one token at a time, as nanoGPT's generate:
//
//   Generator gen(seed);
//   std::vector<int64_t> text = models::generate(*model, prompt, 200, models::SamplingOptions().top_k(40), gen);
//
// Each step feeds the last block_size tokens, divides the last position's logits by the
// temperature, keeps the top_k largest (0: all) and draws the next token from their softmax
// with one uniform number of `generator`: the same seed gives the same text.
#include <cstdint>
#include <vector>

#include "models/gpt.h"
#include "tensor/arg.h"
#include "tensor/generator.h"

namespace brisk::models {

struct SamplingOptions {
  BRISK_ARG(double, temperature) = 1.0;  // > 0; lower is more conservative
  BRISK_ARG(int64_t, top_k) = 0;         // sample among the k likeliest tokens; 0: among all
};

// `prompt` (at least one token) followed by `new_tokens` sampled ones. Runs without autograd,
// on the model's device.
std::vector<int64_t> generate(GPTImpl& model, const std::vector<int64_t>& prompt, int64_t new_tokens,
                              const SamplingOptions& options, Generator& generator);

}  // namespace brisk::models
