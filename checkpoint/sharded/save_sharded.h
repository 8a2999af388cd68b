#pragma once
// Saving a sharded checkpoint: each rank writes its own rows, no rank gathers anyone else's
// (torch.distributed.checkpoint.save). The directory's layout: sharded_index.h.
//
//   checkpoint::ShardedStateDict state;                    // this rank's part (sharded_state_dict.h)
//   state.insert("fc.weight", checkpoint::sharded(rows, weight_shape, my_rows));
//   checkpoint::save_sharded("ckpt/step-100", state, *group);
//
// Collective over `group`: every rank calls it with the same entries in the same order (names,
// global shapes, dtypes, replicated or not alike) whose sharded rows together cover each
// entry's dim 0 once. Rank r writes its rows of each sharded entry, and rank 0 the replicated
// ones, to its own safetensors file (atomic, with checksums); once every rank's file is
// durable, rank 0 reads their headers back, checks that the rows fit together and writes
// index.json (atomic). A save that fails or crashes before that leaves no index of its
// generation, so a loader sees the previous checkpoint in the directory, if any, or none.
//
// Saving over an older checkpoint in the same directory is atomic: the new files carry the
// next generation number in their names, the old index keeps pointing at the old files until
// the new index replaces it (one rename), and only then does rank 0 remove the files of other
// generations. A failure on any rank raises brisk::Error on every rank, naming the directory,
// the rank and the cause.
#include <string>

#include "checkpoint/safetensors_header.h"
#include "checkpoint/sharded/sharded_state_dict.h"
#include "distributed/process_group.h"

namespace brisk::checkpoint {

// `metadata` goes into the index (a training run's: checkpoint/checkpoint_layout.h). The
// directory is created when absent (by rank 0; every rank must see the same file system).
void save_sharded(const std::string& directory, const ShardedStateDict& state, dist::ProcessGroup& group,
                  const Metadata& metadata = {});

}  // namespace brisk::checkpoint
