#pragma once
// A training run's sharded checkpoint: the tensors and metadata of checkpoint/checkpoint_layout.h
// (model tensors by name, the optimizer's under "optimizer/", the run's scalars as "brisk.*"
// metadata) saved by save_sharded, each rank its rows. A sharded trainer saves and loads its
// own shards (distributed/zero2/zero2_checkpoint.h); a single process reads the whole run:
//
//   checkpoint::Checkpoint ckpt = checkpoint::load_sharded_checkpoint("ckpt/step-100");
//   checkpoint::restore(ckpt, *model, optimizer, &scheduler);   // as from save_checkpoint's file
//
// The optimizer's state is that of a plain optimizer over the full parameters.
#include <string>

#include "checkpoint/checkpoint.h"

namespace brisk::checkpoint {

// Every entry of the checkpoint in `directory`, whole, with its run's scalars. Errors name the
// directory, the file and the entry (sharded_reader.h; checkpoint_layout.h's checks).
Checkpoint load_sharded_checkpoint(const std::string& directory);

// The run's scalars only (progress, generator, data seed, optimizer name and groups, scheduler,
// metadata), from the index: what a sharded trainer needs before it loads its own rows.
Checkpoint load_sharded_checkpoint_metadata(const std::string& directory);

// Whether `path` is a directory: where a sharded checkpoint is, rather than a file.
bool is_sharded_checkpoint_path(const std::string& path);

}  // namespace brisk::checkpoint
