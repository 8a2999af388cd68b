#pragma once
// Everything a training run needs to continue where it stopped: the model's state_dict, the
// optimizer's, how far training got, the default generator's state and the data loader's
// seed. A run resumed from a checkpoint computes bitwise the same as one never interrupted
// (on the CPU, with the same program and flags).
//
//   // saving, e.g. after each epoch
//   checkpoint::save_checkpoint(path, checkpoint::capture(*model, optimizer, progress, loader.seed(), &scheduler));
//
//   // resuming, after building the model, optimizer and scheduler as the saved run did
//   checkpoint::Checkpoint ckpt = checkpoint::load_checkpoint(path);
//   checkpoint::restore(ckpt, *model, optimizer, &scheduler);  // checks they are; sets brisk::default_generator()
//   data::DataLoader loader(dataset, data::DataLoaderOptions()...seed(ckpt.data_seed));
//   then train from epoch ckpt.progress.epoch, skipping its first ckpt.progress.batch batches
//
// Checkpoints every few steps, written in the background: checkpoint/checkpoint_writer.h; their
// file names, and the newest of them: checkpoint/save_pattern.h.
//
// The file is one safetensors file, written atomically; its layout, and how other frameworks
// read it: docs/training.md, "Checkpoints".
#include <cstdint>
#include <string>

#include "checkpoint/safetensors_header.h"
#include "nn/module.h"
#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"
#include "tensor/generator.h"

namespace brisk::checkpoint {

// How far training got. Resuming trains epoch `epoch` from its batch `batch` on (batch 0:
// the epoch from its start).
struct Progress {
  int64_t epoch = 0;
  int64_t batch = 0;  // batches of `epoch` already trained
  int64_t step = 0;   // optimizer steps since the run began
};

struct Checkpoint {
  nn::StateDict model;
  std::string optimizer_name;  // "SGD": restore() refuses another kind of optimizer
  optim::OptimizerState optimizer;
  nlohmann::json scheduler;  // the LR scheduler's state_dict(); null when the run has none
  Progress progress;
  Generator::State generator;  // of brisk::default_generator()
  uint64_t data_seed = 0;      // data::DataLoaderOptions::seed of the training data
  Metadata metadata;           // the program's own entries; keys other than "format" and "brisk.*"
  std::string path;            // the file load_checkpoint read, for messages; "" for one captured
};

// The state of live objects and of brisk::default_generator(); `scheduler` may be null. The
// tensors are the model's and optimizer's own (as their state_dict()s hand them out), not
// copies: save the checkpoint before training goes on.
Checkpoint capture(const nn::Module& model, const optim::Optimizer& optimizer, const Progress& progress,
                   uint64_t data_seed, const optim::LRScheduler* scheduler = nullptr);

// Loads the model, optimizer and scheduler state and sets brisk::default_generator(). They
// must be built as in the saved run: check_compatible (checkpoint/compatibility.h) first
// raises an error naming every difference (a tensor's shape, the optimizer's kind, a
// scheduler given or not, its schedule's settings such as T_max) before anything is loaded.
void restore(const Checkpoint& checkpoint, nn::Module& model, optim::Optimizer& optimizer,
             optim::LRScheduler* scheduler = nullptr);

void save_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Raises brisk::Error naming the file and the entry when the file is not a safetensors file
// (see load_safetensors), lacks, or has a malformed, brisk.* entry, or does not match its
// checksums (naming the tensor or entry), or is of another layout version than this build's
// (naming it).
Checkpoint load_checkpoint(const std::string& path);

}  // namespace brisk::checkpoint
