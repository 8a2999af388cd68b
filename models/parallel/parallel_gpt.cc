#include "models/parallel/parallel_gpt.h"

#include <cmath>
#include <set>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/tensor_parallel/full_state_dict.h"
#include "distributed/tensor_parallel/mappings.h"
#include "distributed/tensor_parallel/parallel_layer.h"
#include "distributed/tensor_parallel/vocab_parallel_cross_entropy.h"
#include "nn/functional.h"
#include "tensor/error.h"

namespace brisk::models {

namespace F = nn::functional;
namespace tp = dist::tp;

BlockRange stage_blocks(int64_t n_layer, int stages, int stage) {
  const int64_t base = n_layer / stages, extra = n_layer % stages;
  return {stage * base + std::min<int64_t>(stage, extra), base + (stage < extra ? 1 : 0)};
}

ParallelGPTImpl::ParallelGPTImpl(const GPTConfig& config_, GPTParallelGroups groups_, int chunks)
    : config(config_), groups(std::move(groups_)), layout(groups.pp->size(), chunks) {
  config.check();
  BRISK_CHECK(groups.dp && groups.tp && groups.pp, "ParallelGPT: the dp, tp and pp groups must all be given");
  BRISK_CHECK((groups.embedding != nullptr) == (layout.ranks() > 1 && (has_first_stage() || has_last_stage())),
              "ParallelGPT: pipeline rank {} of {} {} an embedding group (gpt_parallel_groups makes it for the first "
              "and last stages when pp > 1)",
              groups.pp->rank(), layout.ranks(), groups.embedding ? "has" : "lacks");
  const int64_t C = config.n_embd();
  if (has_first_stage() || has_last_stage()) {
    wte = register_module(
        "wte", tp::VocabParallelEmbedding(tp::VocabParallelEmbeddingOptions(config.vocab_size(), C), groups.tp));
  }
  if (has_first_stage()) wpe = register_module("wpe", nn::Embedding(config.block_size(), C));
  blocks = register_module("blocks", std::make_shared<nn::Module>());
  for (int chunk = 0; chunk < layout.chunks(); ++chunk) {
    const BlockRange range = stage_blocks(config.n_layer(), layout.stages(), layout.stage_of(groups.pp->rank(), chunk));
    for (int64_t i = range.first; i < range.first + range.count; ++i) {
      block_at_[i] = blocks->register_module(std::to_string(i), ParallelGPTBlock(config, groups.tp));
    }
  }
  if (has_last_stage()) ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({C})));
}

std::vector<Tensor> ParallelGPTImpl::run_stage(int stage, const std::vector<Tensor>& inputs) {
  BRISK_CHECK(inputs.size() == 1, "ParallelGPT stage {}: expected one input, got {}", stage, inputs.size());
  Tensor x = inputs[0];
  if (layout.is_first(stage)) {
    BRISK_CHECK(x.dim() == 2 && x.dtype() == kInt64, "ParallelGPT: expected int64 tokens [B, T], got {}", x.describe());
    const int64_t T = x.size(1);
    BRISK_CHECK(T <= config.block_size(), "ParallelGPT: {} tokens are more than the model's block_size {}", T,
                config.block_size());
    Tensor positions = arange(0, T, TensorOptions(kInt64).device(x.device()));
    x = wte(x) + wpe(positions);  // [b, T, C], whole on every tp rank
  }
  const BlockRange range = stage_blocks(config.n_layer(), layout.stages(), stage);
  for (int64_t i = range.first; i < range.first + range.count; ++i) {
    ParallelGPTBlockImpl& block = *block_at_.at(i);
    x = nn::forward_naming_module(block, [&] { return block.forward(x); });
  }
  if (layout.is_last(stage)) {
    // The tied head, column-parallel over the vocabulary: this rank's logits [b, T, vocab_r];
    // copy_to_region sums the ranks' gradients of the hidden state in backward.
    x = F::linear(tp::copy_to_region(ln_f(x), groups.tp), wte->weight);
  }
  return {x};
}

std::vector<dist::pipeline::StageFunction> ParallelGPTImpl::stage_functions() {
  std::vector<dist::pipeline::StageFunction> functions;
  for (int chunk = 0; chunk < layout.chunks(); ++chunk) {
    const int stage = layout.stage_of(groups.pp->rank(), chunk);
    functions.push_back([this, stage](const std::vector<Tensor>& inputs) { return run_stage(stage, inputs); });
  }
  return functions;
}

dist::pipeline::LossFunction ParallelGPTImpl::loss_function() const {
  return [tp_group = groups.tp, vocab = config.vocab_size()](const std::vector<Tensor>& outputs,
                                                             const std::vector<Tensor>& targets) {
    const Tensor& logits = outputs.at(0);
    return tp::vocab_parallel_cross_entropy(logits.reshape({-1, logits.size(-1)}), targets.at(0).reshape({-1}),
                                            tp_group, vocab);
  };
}

void ParallelGPTImpl::reduce_gradients() {
  NoGradGuard no_grad;
  std::vector<Tensor> params = parameters();
  for (Tensor& p : params) {
    if (!p.grad().defined()) p.mutable_grad() = zeros_like(p);
  }
  if (groups.embedding) groups.embedding->all_reduce(wte->weight.mutable_grad())->wait();
  if (groups.dp->size() == 1) return;
  // One all-reduce of every gradient flattened into one buffer (the step's only dp traffic;
  // a model too large for one more copy of its gradients would bucket them as DDP does).
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(p.grad().reshape({-1}));
  Tensor buffer = cat(flat);
  groups.dp->all_reduce(buffer)->wait();
  buffer.div_(static_cast<double>(groups.dp->size()));
  int64_t offset = 0;
  for (Tensor& p : params) {
    Tensor& grad = p.mutable_grad();
    grad.copy_(buffer.narrow(0, offset, grad.numel()).view(grad.sizes()));
    offset += grad.numel();
  }
}

double ParallelGPTImpl::clip_grad_norm_(double max_norm) {
  NoGradGuard no_grad;
  std::set<const TensorImpl*> split;  // the parameters split over tp
  for (const auto& item : named_modules(/*include_self=*/false)) {
    const auto* layer = dynamic_cast<const tp::TensorParallelLayer*>(item.value().get());
    if (layer == nullptr) continue;
    for (const tp::ParallelParameter& p : layer->parallel_parameters()) {
      if (p.split_dim >= 0) split.insert(item.value()->named_parameters(/*recurse=*/false)[p.name].impl());
    }
  }
  Tensor squares = zeros({}, TensorOptions(kFloat64));
  for (const auto& item : named_parameters()) {
    const Tensor& grad = item.value().grad();
    if (!grad.defined()) continue;
    const bool counted_on_tp_rank_0 = split.count(item.value().impl()) == 0 && groups.tp->rank() != 0;
    const bool tied_copy = item.key() == "wte.weight" && !has_first_stage();  // counted on the first stage
    if (counted_on_tp_rank_0 || tied_copy) continue;
    squares = squares + grad.to(kFloat64).pow(2).sum();
  }
  groups.tp->all_reduce(squares)->wait();
  groups.pp->all_reduce(squares)->wait();
  const double total = std::sqrt(squares.item<double>());
  const double coefficient = max_norm / (total + 1e-6);  // clip_grad_norm_'s
  if (coefficient < 1) {
    for (const Tensor& p : parameters()) {
      if (p.grad().defined()) p.mutable_grad().mul_(coefficient);
    }
  }
  return total;
}

void ParallelGPTImpl::load_full_state_dict(const nn::StateDict& full) {
  nn::StateDict mine;
  for (const auto& item : state_dict()) {
    const Tensor* tensor = full.find(item.key());
    BRISK_CHECK(tensor != nullptr, "ParallelGPT: the state has no '{}' (pipeline rank {})", item.key(),
                groups.pp->rank());
    mine.insert(item.key(), *tensor);
  }
  tp::load_full_state_dict(*this, mine);
}

nn::StateDict ParallelGPTImpl::full_state_dict() { return tp::full_state_dict(*this); }

}  // namespace brisk::models
