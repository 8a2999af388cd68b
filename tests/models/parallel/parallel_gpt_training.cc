#include "tests/models/parallel/parallel_gpt_training.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "models/gpt.h"
#include "models/parallel/gather_gpt_state.h"
#include "models/parallel/parallel_gpt.h"
#include "models/parallel/parallel_gpt_eval.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "tensor/generator.h"

namespace brisk::models::testing {

namespace {

using dist::pipeline::PipelineSchedule;
using dist::pipeline::PipelineStage;

constexpr double kTolerance = 1e-12;
constexpr int64_t kBatch = 8, kTokens = 8;
constexpr int kSteps = 3;

// AdamW with its default weight decay (1e-2), at a rate that moves the tiny model visibly.
optim::AdamWOptions adamw_options() { return optim::AdamWOptions(1e-2); }

// Step `step`'s global batch: int64 inputs and targets [kBatch, kTokens], a sequence shifted
// by one, from a formula (no generator: every rank and thread makes the same).
std::pair<Tensor, Tensor> batch(int step, int64_t vocab) {
  Tensor sequence = empty({kBatch, kTokens + 1}, TensorOptions(kInt64));
  int64_t* data = sequence.data_ptr<int64_t>();
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t t = 0; t <= kTokens; ++t) {
      data[b * (kTokens + 1) + t] = (b * 131 + t * 71 + step * 29 + (b * t) % 7 * 17) % vocab;
    }
  }
  return {sequence.narrow(1, 0, kTokens).contiguous(), sequence.narrow(1, 1, kTokens).contiguous()};
}

double max_difference(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

}  // namespace

std::string LayoutCase::name() const {
  return fmt::format("(dp {}, tp {}, pp {}) {} x{}{}{}", dp, tp, pp, dist::pipeline::schedule_name(kind), chunks,
                     zero1 ? " zero1" : "", max_grad_norm > 0 ? fmt::format(" clip {}", max_grad_norm) : "");
}

std::vector<dist::DeviceMesh::Dim> layout_dims(const LayoutCase& c) {
  return {{"pp", c.pp}, {"dp", c.dp}, {"tp", c.tp}};
}

GPTConfig test_config() { return GPTConfig().vocab_size(256).block_size(8).n_layer(4).n_head(12).n_embd(24); }

nn::StateDict initial_state(const GPTConfig& config) {
  manual_seed(0);
  GPT model(config);
  model->to(kFloat64);
  nn::StateDict state;
  for (const auto& item : model->state_dict()) state.insert(item.key(), item.value().clone());
  return state;
}

LayoutTraining::LayoutTraining(const GPTParallelGroups& groups, const LayoutCase& c, const nn::StateDict& initial)
    : model(test_config(), groups, c.chunks), layout_(c), groups_(groups) {
  model->to(kFloat64);
  model->load_full_state_dict(initial);
  if (c.zero1) {
    zero_ = std::make_unique<dist::ZeroRedundancyOptimizer>(
        model->parameters(),
        [](std::vector<Tensor> shard) { return std::make_unique<optim::AdamW>(shard, adamw_options()); }, groups.dp);
  } else {
    plain_ = std::make_unique<optim::AdamW>(model->parameters(), adamw_options());
  }
  stage_ = std::make_unique<PipelineStage>(groups.pp, model->stage_functions(),
                                           PipelineSchedule::make(c.kind, c.pp, std::max(2, c.pp), c.chunks),
                                           model->loss_function());
}

LayoutTraining::~LayoutTraining() = default;

Tensor LayoutTraining::step(int step) {
  auto [inputs, targets] = batch(step, model->config.vocab_size());
  const int64_t rows = kBatch / layout_.dp, first_row = groups_.dp->rank() * rows;
  model->zero_grad();
  Tensor loss = stage_->step(
      model->has_first_stage() ? std::vector<Tensor>{inputs.narrow(0, first_row, rows)} : std::vector<Tensor>{},
      model->has_last_stage() ? std::vector<Tensor>{targets.narrow(0, first_row, rows)} : std::vector<Tensor>{});
  model->reduce_gradients();
  if (layout_.max_grad_norm > 0) model->clip_grad_norm_(layout_.max_grad_norm);
  if (zero_) {
    zero_->step();
  } else {
    plain_->step();
  }
  if (!model->has_last_stage()) return Tensor();
  Tensor global = loss.detach().clone();
  groups_.dp->all_reduce(global)->wait();
  return global / static_cast<double>(layout_.dp);
}

FullGPTState LayoutTraining::gather() {
  FullGPTState state;
  state.model = gather_full_state_dict(*model);
  optim::OptimizerState local;
  if (zero_) {
    zero_->consolidate_state_dict(0);
    if (groups_.dp->rank() == 0) local = zero_->state_dict();
  } else {
    local = plain_->state_dict();
  }
  state.optimizer = gather_full_optimizer_state(*model, local, full_parameter_keys());
  return state;
}

void LayoutTraining::load(const FullGPTState& state) {
  model->load_full_state_dict(state.model);
  const optim::OptimizerState mine = split_optimizer_state(*model, state.optimizer, full_parameter_keys());
  if (zero_) {
    zero_->load_state_dict(mine);
  } else {
    plain_->load_state_dict(mine);
  }
}

const std::vector<std::string>& full_parameter_keys() {
  static const std::vector<std::string> keys = GPT(test_config())->named_parameters().keys();
  return keys;
}

OneProcessTraining::OneProcessTraining(const nn::StateDict& initial, double max_grad_norm)
    : model(test_config()), max_grad_norm_(max_grad_norm) {
  model->to(kFloat64);
  model->load_state_dict(initial);
  optimizer_ = std::make_unique<optim::AdamW>(model->parameters(), adamw_options());
}

OneProcessTraining::~OneProcessTraining() = default;

Tensor OneProcessTraining::step(int step) {
  auto [inputs, targets] = batch(step, model->config.vocab_size());
  optimizer_->zero_grad();
  Tensor loss = gpt_loss(model->forward(inputs), targets);
  loss.backward();
  if (max_grad_norm_ > 0) optim::clip_grad_norm_(model->parameters(), max_grad_norm_);
  optimizer_->step();
  return loss.detach();
}

optim::OptimizerState OneProcessTraining::optimizer_state() const { return optimizer_->state_dict(); }

std::string train_and_compare(const GPTParallelGroups& groups, const LayoutCase& c, const nn::StateDict& initial) {
  OneProcessTraining reference_run(initial, c.max_grad_norm);
  LayoutTraining run(groups, c, initial);
  ParallelGPT& model = run.model;
  GPT& reference = reference_run.model;
  std::string failure;
  for (int step = 0; step < kSteps; ++step) {
    const Tensor loss = run.step(step);
    const Tensor reference_loss = reference_run.step(step);
    if (model->has_last_stage()) {
      const double value = loss.item<double>(), expected = reference_loss.item<double>();
      if (!(std::abs(value - expected) <= kTolerance)) {
        failure += fmt::format("step {}: loss {:.17g} != {:.17g}; ", step, value, expected);
      }
    }
  }
  {  // Evaluation without training: the next batch's loss.
    auto [inputs, targets] = batch(kSteps, model->config.vocab_size());
    const double value = parallel_gpt_loss(*model, inputs, targets);
    NoGradGuard no_grad;
    const double expected = gpt_loss(reference->forward(inputs), targets).item<double>();
    if (!(std::abs(value - expected) <= kTolerance)) {
      failure += fmt::format("held-out loss {:.17g} != {:.17g}; ", value, expected);
    }
  }
  const nn::StateDict full = model->full_state_dict();
  const nn::StateDict expected = reference->state_dict();
  for (const auto& item : full) {
    const Tensor* want = expected.find(item.key());
    if (want == nullptr) {
      failure += fmt::format("'{}' is not a GPT key; ", item.key());
    } else if (item.value().sizes() != want->sizes()) {
      failure += fmt::format("'{}' gathered to {}, not {}; ", item.key(), item.value().describe(), want->describe());
    } else if (const double diff = max_difference(item.value(), *want); !(diff <= kTolerance)) {
      failure += fmt::format("'{}' differs by {:.3g} after the steps; ", item.key(), diff);
    }
  }
  // Gathered onto one rank: every key of the GPT, each the one-process value.
  const nn::StateDict gathered = gather_full_state_dict(*model);
  if (is_gathering_rank(*model)) {
    if (gathered.keys() != expected.keys()) failure += "the gathered keys are not the GPT's, in its order; ";
    for (const auto& item : gathered) {
      const Tensor* want = expected.find(item.key());
      if (want != nullptr && !(max_difference(item.value(), *want) <= kTolerance)) {
        failure += fmt::format("gathered '{}' differs; ", item.key());
      }
    }
  } else if (!gathered.is_empty()) {
    failure += "a rank other than (dp 0, tp 0, pp 0) got the gathered state; ";
  }
  if (failure.empty()) return failure;
  return fmt::format("{}, global rank of (pp {}, dp {}, tp {}): {}", c.name(), groups.pp->rank(), groups.dp->rank(),
                     groups.tp->rank(), failure);
}

}  // namespace brisk::models::testing
