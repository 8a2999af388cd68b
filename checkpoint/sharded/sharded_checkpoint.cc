#include "checkpoint/sharded/sharded_checkpoint.h"

#include <sys/stat.h>

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

Checkpoint load_sharded_checkpoint_metadata(const std::string& directory) {
  return checkpoint_from({}, read_index(directory).metadata, /*checksums_verified=*/true, directory);
}

bool is_sharded_checkpoint_path(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace brisk::checkpoint
