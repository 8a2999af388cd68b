#pragma once
// The index of a sharded checkpoint: the file "index.json" in its directory, beside one
// safetensors file per rank. It records, for every entry, the global shape, the dtype, and
// which rank's file holds which rows of dim 0; and the checkpoint's metadata (for a training
// run, the "brisk.*" entries of checkpoint/checkpoint_layout.h). The JSON:
//
//   {
//    "format": "brisk.sharded",
//    "version": 1,
//    "generation": 3,
//    "world_size": 2,
//    "files": [
//     "rank-00000-of-00002.gen-3.safetensors",
//     "rank-00001-of-00002.gen-3.safetensors"
//    ],
//    "entries": [
//     {"name":"fc.weight","dtype":"F32","shape":[5,4],"shards":[{"rank":0,"begin":0,"rows":3},{"rank":1,"begin":3,"rows":2}]},
//     {"name":"optimizer/state.0.step","dtype":"F32","shape":[],"replicated":true,"shards":[{"rank":0,"begin":0,"rows":1}]}
//    ],
//    "metadata": {
//     "brisk.checkpoint": "2", ...
//    }
//   }
//
// In rank r's file an entry's tensor has the entry's name and holds its rows (a 0-d entry: a
// [1] tensor). A directory is a checkpoint only once its index exists: rank 0 writes it,
// atomically, after every rank's file is durable (save_sharded.h).
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/safetensors_header.h"
#include "distributed/shard/flat_shard_layout.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace brisk::checkpoint {

constexpr const char* kIndexFileName = "index.json";

struct ShardPiece {
  int rank = 0;
  dist::RowRange rows;
};

struct IndexEntry {
  std::string name;
  DType dtype;
  Shape shape;
  bool replicated = false;         // written once, by rank 0
  std::vector<ShardPiece> shards;  // in row order, covering dim 0 exactly; ranks with no row left out
};

struct ShardedIndex {
  int64_t generation = 0;
  int world_size = 0;
  std::vector<std::string> files;  // rank r's file name, relative to the directory
  std::vector<IndexEntry> entries;
  Metadata metadata;
};

// Rank `rank`'s file name in generation `generation` of a checkpoint saved by `world_size` ranks.
std::string rank_file_name(int rank, int world_size, int64_t generation);
// Whether `file_name` is a rank file's name (of any generation), and which generation.
bool parse_rank_file_name(const std::string& file_name, int64_t* generation);

std::string encode_index(const ShardedIndex& index);
// Parses and checks `json`, the index at `path`: every field's type, the ranks, and that each
// entry's shards cover its dim 0 in order without gap or overlap. Errors are brisk::Error
// naming the path and the entry.
ShardedIndex parse_index(const std::string& json, const std::string& path);
// Reads `directory`'s index; raises brisk::Error naming the directory when there is none
// (no checkpoint, or a save that did not finish).
ShardedIndex read_index(const std::string& directory);

}  // namespace brisk::checkpoint
