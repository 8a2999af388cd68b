#pragma once
// parallel_bench's layouts as what the timing loop needs (LayoutRun), and its mesh layout:
// models::ParallelGPT (models/parallel/parallel_gpt.h) on a {pp, dp, tp} DeviceMesh, trained
// as the training program trains it (tools/train/parallel_language_model_training.cc):
//
//   bench::LayoutRun run = bench::parallel_gpt_layout(gpt, tokens, targets, {/*dp=*/2, /*tp=*/2, /*pp=*/2, "1f1b", 4});
//   optimizer.zero_grad(true); Tensor loss = run.step(); run.optimizer->step();
//
// The mesh's groups come from models::gpt_parallel_groups (tp fastest, then dp, then pp);
// every rank builds the one-process models::GPT from the default generator as it stands (the
// caller seeds it, as for its single layout) and loads its parts of it, so the layout trains
// the single layout's model. Each dp rank takes its rows of the global batch [batch, seq]
// (tokens on the first stage, targets on the last); the pipeline (PipelineStage over the pp
// group, model->stage_functions()) runs --schedule over --microbatches when pp > 1, and the
// whole share in one microbatch when pp is 1 (a pass cut in four would only be slower); after
// it, reduce_gradients sums the tied embedding over its group and averages every gradient over
// dp in one all-reduce (not overlapped with the backward, as DDP's buckets are). AdamW lr 1e-4
// over the rank's parameters, as the other layouts; no ZeRO.
// Memory: the one-process model lives only while the parts are loaded; the tensors' peak
// (max_memory_allocated) is reset after it is freed, the resident set's cannot be (its peak
// includes that model on every rank: 3.4 MB for mini, 43 MB for small).
#include <functional>
#include <memory>
#include <string>

#include "distributed/distributed.h"
#include "models/gpt_config.h"
#include "optim/optimizer.h"
#include "tensor/tensor.h"

namespace brisk::bench {

// One layout ready to train. step() runs the forward and backward of the global batch (the
// gradients reduced as the layout needs) and returns this rank's loss of its share (undefined
// on a rank that computes none, e.g. a middle pipeline stage); optimizer steps this rank's
// parameters.
struct LayoutRun {
  std::string name;  // the output's layout field
  std::function<Tensor()> step;
  std::shared_ptr<optim::Optimizer> optimizer;
  int microbatches = 1;
  // The ranks of this rank's pipeline, whose events measure the bubble; null without a pipeline.
  dist::GroupPtr pipeline;
  double bubble_formula = -1;  // formula_bubble of the schedule; -1 without a pipeline
};

struct MeshOptions {
  int dp = 1, tp = 1, pp = 1;
  std::string schedule = "1f1b";  // gpipe, 1f1b or interleaved (2 chunks per rank); pp > 1 only
  int microbatches = 4;           // pp > 1 only
};

// Collective over the default group, whose size must be dp x tp x pp.
LayoutRun parallel_gpt_layout(const models::GPTConfig& gpt, const Tensor& tokens, const Tensor& targets,
                              const MeshOptions& options);

}  // namespace brisk::bench
