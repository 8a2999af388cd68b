#include "checkpoint/sharded/sharded_checkpoint.h"

#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/sharded/sharded_reader.h"

namespace brisk::checkpoint {

Checkpoint load_sharded_checkpoint(const std::string& directory) {
  ShardedReader reader(directory);
  nn::StateDict tensors;
  for (const IndexEntry& entry : reader.index().entries) tensors.insert(entry.name, reader.read(entry.name));
  // Every rank file's checksums were checked as it was read (rank_file.h requires them).
  return checkpoint_from(tensors, reader.index().metadata, /*checksums_verified=*/true, directory);
}

}  // namespace brisk::checkpoint
