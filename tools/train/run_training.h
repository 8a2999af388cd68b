#pragma once
// The training program (tools/train/train.cc's main): flags, data, model, the epochs with
// their log lines, CSV, charts and checkpoints, in one process or as one rank of a launched
// job (docs/training.md).
#include "checkpoint/checkpoint.h"
#include "nn/module.h"

namespace brisk::train {

// Points of a run that a test's build of the program watches, to disturb it there
// (tests/tools/train/fault_injection.h kills a rank at one); the program itself has none.
class RunHooks {
 public:
  virtual ~RunHooks() = default;
  // Before the first step, at `progress` (a resumed run's), with the model to be trained.
  virtual void start(const checkpoint::Progress& progress, nn::Module& model) {}
  // After every optimizer step.
  virtual void after_step(const checkpoint::Progress& progress) {}
  // Right before a checkpoint of `progress` is written (rank 0).
  virtual void before_checkpoint(const checkpoint::Progress& progress) {}
};

// The program: parses the flags (train_options.h), trains, and returns the exit status: 0, or 1
// after logging the brisk::Error that stopped the run (a bad flag, missing data, a peer lost).
int run_training(int argc, char** argv, RunHooks* hooks = nullptr);

}  // namespace brisk::train
