#pragma once
// The training program's GPT on a (dp, tp, pp) layout (--model gpt under the launcher): the
// ranks form the mesh {pp, dp, tp} (tp fastest), each trains its part of the model
// (models/parallel/parallel_gpt.h) with the pipeline schedule --pp-schedule over --microbatches,
// averages the gradients over dp after each step, and steps AdamW (or, with --shard zero1, a
// ZeroRedundancyOptimizer over dp).
//
//   tools/launch --nproc-per-node 8 tools/train/train --model gpt --dp 2 --tp 2 --pp 2 --pp-schedule 1f1b
//
// The run follows the one-process one step for step: every rank builds the whole GPT from
// --seed and takes its parts of it, and every rank draws each step's global batch of
// --batch-size windows from the same generator as one process, keeping its dp share; so a
// layout trains the model one process trains, up to float32 rounding. After each epoch every
// rank evaluates the held-out bits per byte on the layout: each dp rank a share of one
// process's evaluation batches, through its stages without a backward (parallel_gpt_eval.h).
// Checkpoints (--save, --resume) are one process's: the whole model and optimizer state
// gathered onto rank 0 (models/parallel/gather_gpt_state.h) and written there, split again on
// load, so any layout, or one process, resumes any other's (docs/parallelism.md).
// --max-grad-norm clips by the whole model's norm (ParallelGPT::clip_grad_norm_). The world
// size must be --dp x --tp x --pp. Not here yet: --accumulate, --checkpoint-format sharded;
// each is refused by name.
#include "distributed/init_distributed.h"
#include "tools/train/train_options.h"

namespace brisk::train {

// Returns the exit status; raises brisk::Error for what stops the run.
int run_parallel_language_model(const TrainOptions& options, const dist::DistributedContext& run);

}  // namespace brisk::train
