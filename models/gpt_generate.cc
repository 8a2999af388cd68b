#include "models/gpt_generate.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "tensor/error.h"

namespace brisk::models {
namespace {

// The token drawn from softmax(logits / temperature) over the top_k likeliest, by `uniform`
// in [0, 1).
int64_t draw_token(std::vector<double> logits, const SamplingOptions& options, double uniform) {
  const int64_t V = static_cast<int64_t>(logits.size());
  for (double& l : logits) l /= options.temperature();
  double floor = -INFINITY;  // logits below it are not drawn
  if (options.top_k() > 0 && options.top_k() < V) {
    std::vector<double> sorted = logits;
    std::nth_element(sorted.begin(), sorted.begin() + (options.top_k() - 1), sorted.end(), std::greater<double>());
    floor = sorted[options.top_k() - 1];
  }
  const double max = *std::max_element(logits.begin(), logits.end());
  double total = 0;
  for (double& l : logits) {
    l = l >= floor ? std::exp(l - max) : 0.0;
    total += l;
  }
  double cumulative = 0;
  for (int64_t i = 0; i < V; ++i) {
    cumulative += logits[i];
    if (uniform * total < cumulative) return i;
  }
  // Rounding left `uniform * total` at the end: the last token that could be drawn.
  for (int64_t i = V - 1; i >= 0; --i) {
    if (logits[i] > 0) return i;
  }
  return V - 1;
}

}  // namespace

std::vector<int64_t> generate(GPTImpl& model, const std::vector<int64_t>& prompt, int64_t new_tokens,
                              const SamplingOptions& options, Generator& generator) {
  BRISK_CHECK(!prompt.empty(), "generate: the prompt needs at least one token");
  BRISK_CHECK(options.temperature() > 0, "generate: temperature must be positive, got {}", options.temperature());
  BRISK_CHECK(options.top_k() >= 0, "generate: top_k must be 0 (all tokens) or positive, got {}", options.top_k());
  NoGradGuard no_grad;
  const Device device = model.wte->weight.device();
  const int64_t block = model.config.block_size();
  std::vector<int64_t> tokens = prompt;
  for (int64_t n = 0; n < new_tokens; ++n) {
    const int64_t start = std::max<int64_t>(0, static_cast<int64_t>(tokens.size()) - block);
    std::vector<int64_t> context(tokens.begin() + start, tokens.end());
    Tensor input = tensor(context, Shape{1, static_cast<int64_t>(context.size())}).to(device);
    Tensor logits = model.forward(input).select(1, -1).select(0, 0).to(kCPU, kFloat64);  // [V]
    const double uniform = brisk::rand({1}, kFloat64, &generator).item<double>();
    tokens.push_back(draw_token(logits.to_vector<double>(), options, uniform));
  }
  return tokens;
}

}  // namespace brisk::models
