#pragma once
// The file names of a run's checkpoints: a save pattern (train's --save) with at most one
// placeholder, {epoch} (epochs completed) or {step} (optimizer steps, zero-padded to 8 digits
// so that `ls` lists them in order), in its file name:
//
//   "runs/a/ckpt-{step}.safetensors"      runs/a/ckpt-00000500.safetensors, ...-00001000..., ...
//   "runs/a/ckpt-{epoch}.safetensors"     runs/a/ckpt-1.safetensors after the first epoch
//   "runs/a/model.safetensors"            one file, each checkpoint replacing the one before
//
// The newest checkpoint of a pattern is the one with the largest number (not the newest file
// time). Every file of a pattern is complete (checkpoint/atomic_file.h); a pattern may also
// name sharded checkpoints' directories (train --checkpoint-format sharded), which count once
// their index exists (checkpoint/sharded/sharded_index.h).
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"

namespace brisk::checkpoint {

enum class Placeholder { kNone, kEpoch, kStep };

// The placeholder of `pattern`'s file name. Raises brisk::Error naming the pattern when it is
// not one: empty or a directory, a placeholder in the directory part, an unknown {...}, or
// more than one placeholder.
Placeholder save_pattern_placeholder(const std::string& pattern);

// The checkpoint file of `pattern` at `progress` (its epoch and step).
std::string checkpoint_path(const std::string& pattern, const Progress& progress);

// The existing checkpoint files of `pattern`, oldest first; empty when there is none or the
// directory does not exist.
std::vector<std::string> list_checkpoints(const std::string& pattern);

// The newest of list_checkpoints(pattern); nullopt when there is none.
std::optional<std::string> newest_checkpoint(const std::string& pattern);

// Removes the temporary files of `pattern`'s checkpoints that killed writes left behind
// (checkpoint/atomic_file.h: remove_stale_temporaries); returns their paths.
std::vector<std::string> remove_stale_checkpoint_temporaries(const std::string& pattern);

}  // namespace brisk::checkpoint
