#pragma once
// The file names of a run's checkpoints: a save pattern (train's --save) with the placeholders
// {epoch} and {step}, the name of the checkpoint at a point of training, and the newest
// complete checkpoint of a pattern, which a restarted run resumes from (train --resume auto):
//
//   "runs/a/ckpt-{step}.safetensors"      runs/a/ckpt-00000500.safetensors, ...-00001000..., ...
//   "runs/a/ckpt-e{epoch}-s{step}.st"     runs/a/ckpt-e0-s00000500.st, runs/a/ckpt-e1-s00000938.st
//   "runs/a/ckpt-{epoch}.safetensors"     runs/a/ckpt-1.safetensors after the first epoch
//   "runs/a/model.safetensors"            one file, each checkpoint replacing the one before
//
//   std::optional<std::string> path = checkpoint::newest_checkpoint("runs/a/ckpt-{step}.safetensors");
//
// {epoch} is the number of epochs completed (1 after the first epoch, and in the middle of the
// second), {step} the optimizer steps since the run began, zero-padded to 8 digits so that `ls`
// lists the checkpoints in order. Newest means the largest step, then the largest epoch (the
// numbers in the names, not the files' times, which a copy changes). Every file of a pattern is
// complete: checkpoints are written to a temporary file renamed over the name only once it is
// whole (checkpoint/atomic_file.h), and temporary names never match the pattern.
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"

namespace brisk::checkpoint {

// Raises brisk::Error naming the pattern when it is not one: a placeholder in the directory
// part, a placeholder twice, an unknown {...}, or two placeholders not separated by a character
// that is not a digit (the numbers could not be told apart).
void check_save_pattern(const std::string& pattern);

// Whether `pattern`'s file name has `placeholder` ("{epoch}" or "{step}").
bool has_placeholder(const std::string& pattern, const std::string& placeholder);

// Whether `pattern` names more than one file ({epoch} or {step} in it).
bool names_several_checkpoints(const std::string& pattern);

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
