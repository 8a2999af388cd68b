#pragma once
// Loading a sharded checkpoint (save_sharded.h) on any world size, or into an unsharded model:
// each rank reads only the entries it asks for and, of each, the rank files that hold the rows
// it needs (torch.distributed.checkpoint.load, re-sharding on load).
//
//   checkpoint::ShardedStateDict state;                 // where this rank's rows go, as for saving
//   state.insert("fc.weight", checkpoint::sharded(rows, weight_shape, dist::dim0_shard(5, world, rank)));
//   checkpoint::load_sharded("ckpt/step-100", state, group.get());
//
//   checkpoint::ShardedReader reader("ckpt/step-100");   // or entry by entry
//   Tensor full = reader.read("fc.weight");               // the whole tensor, e.g. into a world of one
//
// What is read is checked against the file's checksums as it is read: of a stored shard all of
// whose rows are wanted, the whole tensor's; of one that holds only some wanted rows, only the
// blocks of rows that hold them (rank_file.h: at most about 1 MiB, and at most a sixteenth of
// the shard's rows, a block), so a rank reads little more than the rows it asks for. Errors are brisk::Error naming the
// directory, the file and the entry, and what is wrong: no index, an entry that is absent, a shape or dtype that
// differs, a rank file that is missing or of another save, a checksum mismatch.
#include <map>
#include <memory>
#include <string>

#include "checkpoint/safetensors_reader.h"
#include "checkpoint/sharded/sharded_index.h"
#include "checkpoint/sharded/sharded_state_dict.h"
#include "distributed/process_group.h"

namespace brisk::checkpoint {

class ShardedReader {
 public:
  // Reads and checks `directory`'s index; rank files are opened when first read.
  explicit ShardedReader(std::string directory);
  ~ShardedReader();

  const std::string& directory() const { return directory_; }
  const ShardedIndex& index() const { return index_; }
  // The entry named `name`, or null.
  const IndexEntry* find(const std::string& name) const;

  // Rows `rows` of entry `name`, shaped local_shape(shape, rows), on the CPU.
  Tensor read(const std::string& name, dist::RowRange rows);
  // The whole entry, shaped as saved.
  Tensor read(const std::string& name);
  // Copies into every entry of `state` its rows (every row when replicated), after checking
  // that the entry exists with the same global shape and dtype. Entries of the checkpoint that
  // `state` lacks are not read.
  void load(ShardedStateDict& state);

 private:
  struct RankFile;
  const IndexEntry& entry(const std::string& name) const;
  const RankFile& file(int rank);

  std::string directory_;
  ShardedIndex index_;
  std::map<int, std::unique_ptr<RankFile>> files_;
};

// ShardedReader(directory).load(state), collective over `group` when not null: a failure on
// any rank raises brisk::Error on every rank, naming the rank.
void load_sharded(const std::string& directory, ShardedStateDict& state, dist::ProcessGroup* group = nullptr);

}  // namespace brisk::checkpoint
