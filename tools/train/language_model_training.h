#pragma once
// The training program's language models (--model gpt): training on the bytes of a text
// (--data-file) with AdamW, the held-out loss in bits per byte after each epoch, checkpoints,
// and text sampled from a checkpoint (--sample). run_training hands --model gpt here after
// parsing the flags (docs/training.md, "GPT").
//
//   train --model gpt --gpt-size mini --epochs 4 --save gpt.safetensors
//   train --model gpt --resume gpt.safetensors --sample 300 --prompt "Q: " --top-k 40
//
// An epoch is --steps-per-epoch optimizer steps of --batch-size random windows of
// block_size + 1 bytes of the training part (the text but its last 5%), drawn from
// brisk::default_generator() so that a resumed run draws the same windows; evaluation reads
// the held-out 5% in consecutive windows (the first --test-limit of them; 0: all). Under the
// launcher (several processes) it trains on --dp x --tp x --pp instead
// (parallel_language_model_training.h); one process refuses those flags.
#include "distributed/init_distributed.h"
#include "tools/train/train_options.h"

namespace brisk::train {

// Trains, or with --sample prints sampled text; returns the exit status. Raises brisk::Error
// for what stops the run (a missing text, a checkpoint of another model).
int run_language_model(const TrainOptions& options, const dist::DistributedContext& run);

}  // namespace brisk::train
