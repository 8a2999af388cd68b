#pragma once
// Sharded checkpoints of a ZeRO-2 run (checkpoint/sharded/): every rank writes only its own rows
// of each trained parameter and of its optimizer state; no rank gathers anyone's. A checkpoint
// saved on N ranks loads on any number (each rank reads the rows it owns there), into one
// process (checkpoint::load_sharded_checkpoint, then checkpoint::restore), and turns into one
// ordinary file (tools/checkpoint/consolidate).
//
//   dist::save_zero2_checkpoint(dir, *model, opt, progress, loader.seed(), &scheduler);     // collective
//
//   checkpoint::Checkpoint run = dist::load_zero2_checkpoint(dir, *model, opt, &scheduler);  // collective
//   default_generator().set_state(run.generator);
//   then train from run.progress with data seed run.data_seed, as after checkpoint::restore
//
// `model` is the module the Zero2DataParallel wraps (its state_dict names are an unsharded
// run's). The entries, as checkpoint/checkpoint_layout.h names them: each trained parameter
// split as the ranks own it (ParameterShards::rows), other parameters and buffers replicated;
// the optimizer state as a plain optimizer over the full parameters numbers it
// ("optimizer/state.<k>.<name>"): tensors shaped like the parameter's shard split the same way,
// the others (Adam's step) replicated; the run's scalars in the index's metadata.
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint.h"
#include "distributed/zero2/zero2_optimizer.h"
#include "nn/module.h"
#include "optim/schedulers/lr_scheduler.h"

namespace brisk::dist {

// Collective over the optimizer's group. `metadata`: the program's own entries (as
// Checkpoint::metadata). Errors on any rank raise brisk::Error on every rank (save_sharded.h).
void save_zero2_checkpoint(const std::string& directory, const nn::Module& model, const Zero2Optimizer& optimizer,
                           const checkpoint::Progress& progress, uint64_t data_seed,
                           const optim::LRScheduler* scheduler = nullptr, const checkpoint::Metadata& metadata = {});

// Collective over the optimizer's group: loads every parameter and buffer whole (ZeRO-2 keeps
// them on every rank), this rank's rows of the optimizer state, and the scheduler's state.
// The optimizer must be of the saved kind, the model of the saved shapes, a scheduler given
// when one was saved. Returns the run's scalars (progress, generator state, data seed,
// metadata; no tensors); the generator is the caller's to set, once per process. An error on
// any rank, naming the directory, the entry and what differs, is raised on every rank.
checkpoint::Checkpoint load_zero2_checkpoint(const std::string& directory, nn::Module& model, Zero2Optimizer& optimizer,
                                             optim::LRScheduler* scheduler = nullptr);

}  // namespace brisk::dist
