#include "tests/distributed/pipeline/layer_chain.h"

#include <algorithm>

#include "tensor/error.h"

namespace brisk::dist::pipeline::testing {

namespace F = nn::functional;

LayerChain::LayerChain(const ChainOptions& options, Device device) : options_(options) {
  Generator gen(options.seed);
  for (int i = 0; i < options.layers; ++i) {
    const int64_t out = i + 1 == options.layers ? options.classes : options.width;
    nn::Linear layer(options.width, out);
    layer->to(kFloat64);
    NoGradGuard no_grad;
    for (Tensor p : layer->parameters()) p.uniform_(-0.6, 0.6, &gen);
    layer->to(device);
    layers_.push_back(layer);
  }
}

Tensor LayerChain::run(Tensor h, const Tensor& x, int from, int to) const {
  for (int i = from; i < to; ++i) {
    h = layers_[i](h);
    if (i + 1 == options_.layers) break;
    h = tanh(options_.skip ? h + x : h);
  }
  return h;
}

std::pair<int, int> LayerChain::stage_layers(int stage, int stages) const {
  BRISK_CHECK(options_.layers >= stages, "LayerChain: {} layers cannot make {} stages", options_.layers, stages);
  const int base = options_.layers / stages, extra = options_.layers % stages;
  const int from = stage * base + std::min(stage, extra);
  return {from, from + base + (stage < extra ? 1 : 0)};
}

std::vector<StageFunction> LayerChain::chunks(const StageLayout& layout, int rank) const {
  std::vector<StageFunction> chunks;
  for (int c = 0; c < layout.chunks(); ++c) {
    const int stage = layout.stage_of(rank, c);
    const auto [from, to] = stage_layers(stage, layout.stages());
    const bool last = layout.is_last(stage), skip = options_.skip;
    chunks.push_back([this, from = from, to = to, last, skip](const std::vector<Tensor>& in) {
      // The first stage gets the batch {x}; later ones {h} or {h, x}.
      const Tensor& x = skip ? in.back() : in[0];
      Tensor h = run(in[0], x, from, to);
      if (skip && !last) return std::vector<Tensor>{h, x};
      return std::vector<Tensor>{h};
    });
  }
  return chunks;
}

std::vector<Tensor> LayerChain::parameters(int from, int to) const {
  std::vector<Tensor> params;
  for (int i = from; i < to; ++i) {
    for (const Tensor& p : layers_[i]->parameters()) params.push_back(p);
  }
  return params;
}

std::vector<Tensor> LayerChain::rank_parameters(const StageLayout& layout, int rank) const {
  std::vector<Tensor> params;
  for (int c = 0; c < layout.chunks(); ++c) {
    const auto [from, to] = stage_layers(layout.stage_of(rank, c), layout.stages());
    for (const Tensor& p : parameters(from, to)) params.push_back(p);
  }
  return params;
}

std::pair<Tensor, Tensor> chain_batch(const ChainOptions& options, int64_t rows, uint64_t seed) {
  Generator gen(seed);
  Tensor x = randn({rows, options.width}, kFloat64, &gen);
  Tensor y = randint(0, options.classes, {rows}, kInt64, &gen);
  return {x, y};
}

Tensor chain_loss(const std::vector<Tensor>& outputs, const std::vector<Tensor>& targets) {
  return F::cross_entropy(outputs[0], targets[0]);
}

double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  BRISK_CHECK(a.size() == b.size(), "max_difference: {} tensors against {}", a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    BRISK_CHECK(a[i].defined() && b[i].defined(), "max_difference: tensor {} is undefined", i);
    worst = std::max(worst, (a[i].to(kCPU) - b[i].to(kCPU)).abs().max().item<double>());
  }
  return worst;
}

}  // namespace brisk::dist::pipeline::testing
