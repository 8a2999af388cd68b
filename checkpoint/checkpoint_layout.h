#pragma once
// How a Checkpoint (checkpoint.h) is laid out as named tensors and string metadata: the model's
// tensors under their names, the optimizer's under "optimizer/", the run's scalars in "brisk.*"
// metadata entries. save_checkpoint writes this layout into one safetensors file; a sharded
// checkpoint (checkpoint/sharded/) spreads the same tensors over its rank files and keeps the
// same metadata in its index, so that either turns into the other.
#include <string>

#include "checkpoint/checkpoint.h"

namespace brisk::checkpoint {

// The prefix of the optimizer's state-dict tensors.
constexpr const char* kOptimizerPrefix = "optimizer/";

// The model's then the optimizer's tensors; raises brisk::Error naming `path` when a model
// tensor's name clashes with the optimizer's prefix.
nn::StateDict checkpoint_tensors(const Checkpoint& checkpoint, const std::string& path);
// The metadata save_checkpoint writes (with "format": "pt"); raises brisk::Error naming `path`
// when one of the program's own keys is reserved ("format", "brisk.*").
Metadata checkpoint_metadata(const Checkpoint& checkpoint, const std::string& path);

// A Checkpoint of the tensors and metadata of `path`: checks the layout version and parses
// every brisk.* entry (errors name `path` and the entry). `checksums_verified`: whether the
// tensors were checked against checksums, which every checkpoint of this version has.
Checkpoint checkpoint_from(const nn::StateDict& tensors, const Metadata& metadata, bool checksums_verified,
                           const std::string& path);

}  // namespace brisk::checkpoint
