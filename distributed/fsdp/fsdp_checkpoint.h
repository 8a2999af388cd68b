#pragma once
// Sharded checkpoints of a fully_shard run (checkpoint/sharded/): every rank writes only the
// shards it holds, of each parameter and of its optimizer state; no rank gathers anyone's. A
// checkpoint saved on N ranks loads on any number (each rank reads the rows it holds there,
// torch.chunk's split of the new world size), into one process (checkpoint::
// load_sharded_checkpoint, then checkpoint::restore), and turns into one ordinary file
// (tools/checkpoint/consolidate).
//
//   dist::save_fsdp_checkpoint(dir, *model, optimizer, progress, loader.seed(), &scheduler);     // collective
//
//   checkpoint::Checkpoint run = dist::load_fsdp_checkpoint(dir, *model, optimizer, &scheduler);  // collective
//   default_generator().set_state(run.generator);
//   then train from run.progress with data seed run.data_seed, as after checkpoint::restore
//
// `model` is the root fully_shard was applied to, between steps (its units resharded);
// `optimizer` a plain optimizer over its parameters (the shards). The entries, as
// checkpoint/checkpoint_layout.h names them: each unit's parameters split as the ranks hold
// them (ShardedUnit::layout()), buffers replicated; the optimizer state under the names a
// plain optimizer over the full parameters gives it: tensors shaped like their parameter's
// shard split the same way, the others (Adam's step) replicated; the run's scalars in the
// index's metadata.
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint.h"
#include "nn/module.h"
#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"

namespace brisk::dist {

// Collective over the units' group. `metadata`: the program's own entries (as
// Checkpoint::metadata). Errors on any rank raise brisk::Error on every rank (save_sharded.h).
void save_fsdp_checkpoint(const std::string& directory, nn::Module& model, const optim::Optimizer& optimizer,
                          const checkpoint::Progress& progress, uint64_t data_seed,
                          const optim::LRScheduler* scheduler = nullptr, const checkpoint::Metadata& metadata = {});

// Collective over the units' group: loads this rank's rows of every parameter and of its
// optimizer state, the buffers whole, and the scheduler's state. The optimizer must be of the
// saved kind, the model of the saved shapes, a scheduler given when one was saved. Returns the
// run's scalars (progress, generator state, data seed, metadata; no tensors); the generator is
// the caller's to set, once per process. An error on any rank, naming the directory, the entry
// and what differs, is raised on every rank.
checkpoint::Checkpoint load_fsdp_checkpoint(const std::string& directory, nn::Module& model,
                                            optim::Optimizer& optimizer, optim::LRScheduler* scheduler = nullptr);

}  // namespace brisk::dist
