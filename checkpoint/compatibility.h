#pragma once
// Whether a checkpoint can resume the run a program has just built, checked before anything
// is loaded, so that a resumed run with another model or another schedule stops with the
// differences named instead of training on with a mix of the two:
//
//   checkpoint::Checkpoint ckpt = checkpoint::load_checkpoint(path);
//   checkpoint::check_metadata(ckpt, {{"model", "resnet20"}, {"batch_size", "128"}});  // the program's own record
//   checkpoint::restore(ckpt, *model, optimizer, &scheduler);  // calls check_compatible first
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"

namespace brisk::checkpoint {

// What keeps `checkpoint` from resuming the run that built `model`, `optimizer` and
// `scheduler`, one line each; empty when nothing does:
//   model       a tensor of one that the other lacks, or of another shape
//   optimizer   another kind (SGD, AdamW), another number of parameter groups or of
//               parameters in a group
//   scheduler   one saved but none given or the other way round, or a setting of its
//               schedule that differs (the base lrs, T_max, total_steps, milestones, ...)
std::vector<std::string> compatibility_problems(const Checkpoint& checkpoint, const nn::Module& model,
                                                const optim::Optimizer& optimizer,
                                                const optim::LRScheduler* scheduler = nullptr);

// Raises brisk::Error naming the checkpoint's file and every problem compatibility_problems
// finds.
void check_compatible(const Checkpoint& checkpoint, const nn::Module& model, const optim::Optimizer& optimizer,
                      const optim::LRScheduler* scheduler = nullptr);

// Compares the program's own record of the run (Checkpoint::metadata: the data set, the batch
// size, the number of processes, ...) with this run's `run` entries, and raises brisk::Error
// naming every entry that differs ("saved with batch_size 32, this run has 16") or that the
// checkpoint lacks ("saved without batch_size, this run has 16").
void check_metadata(const Checkpoint& checkpoint, const Metadata& run);

}  // namespace brisk::checkpoint
