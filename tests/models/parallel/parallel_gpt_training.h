#pragma once
// One rank's half of the ParallelGPT equivalence tests, shared by the thread-rank test and the
// multiprocess worker: trains this rank's part of the GPT on a (dp, tp, pp) layout with AdamW
// and, on the same rank, the unsplit GPT in one process on the global batch, both in float64
// from the same initial state, and compares them.
//
//   dist::DeviceMesh mesh(layout_dims(c), rank, world, factory);
//   std::string failure = train_and_compare(gpt_parallel_groups(mesh, factory), c, initial);
#include <memory>
#include <string>
#include <vector>

#include "distributed/mesh/device_mesh.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/schedules.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "models/gpt.h"
#include "models/gpt_config.h"
#include "models/parallel/gpt_parallel_groups.h"
#include "models/parallel/parallel_gpt.h"
#include "nn/module.h"
#include "optim/optimizer.h"

namespace brisk::models::testing {

struct LayoutCase {
  int dp = 1, tp = 1, pp = 1;
  dist::pipeline::ScheduleKind kind = dist::pipeline::ScheduleKind::OneFOneB;
  int chunks = 1;            // stages per pipeline rank (interleaved: 2)
  bool zero1 = false;        // ZeRO-1 over dp instead of a plain AdamW on every rank
  double max_grad_norm = 0;  // > 0: the gradients clipped to this total norm before each step
  int world() const { return dp * tp * pp; }
  // "(dp 2, tp 2, pp 2) 1f1b x1"
  std::string name() const;
};

// The mesh of a layout: {"pp", "dp", "tp"}, tp fastest (Megatron-LM's order).
std::vector<dist::DeviceMesh::Dim> layout_dims(const LayoutCase& c);

// The tests' GPT: bytes (vocab 256: split 86, 86, 84 over 3), n_embd 24 with 12 heads (tp 1-4
// split them evenly), 4 layers (one per stage of an interleaved 2 x 2 pipeline), block 8.
GPTConfig test_config();
// The unsplit GPT's initial state in float64, from seed 0 (the default generator: call it on
// one thread).
nn::StateDict initial_state(const GPTConfig& config);

// The unsplit GPT's training state: its parameters and the state of an AdamW over them.
struct FullGPTState {
  nn::StateDict model;
  optim::OptimizerState optimizer;
};

// The unsplit test GPT's named_parameters keys, in order.
const std::vector<std::string>& full_parameter_keys();

// This rank's part of the test GPT on a layout, with its AdamW (or ZeRO-1 over dp) and pipeline.
class LayoutTraining {
 public:
  LayoutTraining(const GPTParallelGroups& groups, const LayoutCase& c, const nn::StateDict& initial);
  ~LayoutTraining();
  // One optimizer step on the global batch number `step` (this rank's dp share); returns the
  // global loss on the last stage's ranks, an undefined tensor on the others.
  Tensor step(int step);
  // Collective: the unsplit state on the gathering rank, empty elsewhere (gather_gpt_state.h).
  FullGPTState gather();
  // This rank's parts of an unsplit state. Local (ZeRO-1 keeps its shard's).
  void load(const FullGPTState& state);

  ParallelGPT model;

 private:
  LayoutCase layout_;
  GPTParallelGroups groups_;
  std::unique_ptr<optim::Optimizer> plain_;
  std::unique_ptr<dist::ZeroRedundancyOptimizer> zero_;
  std::unique_ptr<dist::pipeline::PipelineStage> stage_;
};

// The unsplit test GPT and its AdamW in one process, on the whole global batches.
class OneProcessTraining {
 public:
  explicit OneProcessTraining(const nn::StateDict& initial, double max_grad_norm = 0);
  ~OneProcessTraining();
  Tensor step(int step);  // the loss
  optim::OptimizerState optimizer_state() const;

  GPT model;

 private:
  std::unique_ptr<optim::Optimizer> optimizer_;
  double max_grad_norm_;
};

// Three AdamW steps on a global batch of 8 sequences of 8 tokens (this rank's dp share of
// them, in max(2, pp) microbatches). After each, the global loss (the mean over dp of the
// last stage's) must equal the one-process loss; after the steps, the loss of a fourth batch
// evaluated without training (parallel_gpt_eval.h) the one-process loss, and every parameter
// this rank holds, gathered whole over tp (and onto rank 0), the one-process parameter, all
// within 1e-12. Returns "" or what differed.
std::string train_and_compare(const GPTParallelGroups& groups, const LayoutCase& c, const nn::StateDict& initial);

}  // namespace brisk::models::testing
