#pragma once
// What a sharded checkpoint's rank file says about itself: its "__metadata__" entry
// "brisk.sharded" records the generation, the rank, the world size and every entry of that
// rank's state dict (rows it holds, none included), so that rank 0 builds the index from the
// durable files and a loader tells a file of another save from the one its index names.
//
//   {"generation": 3, "rank": 1, "world_size": 2,
//    "entries": [{"name": "fc.weight", "dtype": "F32", "shape": [5, 4], "begin": 3, "rows": 2}, ...]}
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/safetensors_reader.h"
#include "distributed/shard/flat_shard_layout.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace brisk::checkpoint {

constexpr const char* kRankFileKey = "brisk.sharded";

struct RankFileEntry {
  std::string name;
  DType dtype;
  Shape shape;  // global
  bool replicated = false;
  dist::RowRange rows;  // this rank's; a tensor in the file when rows.rows > 0 (replicated: rank 0 only)
};

struct RankFileHeader {
  int64_t generation = 0;
  int rank = 0;
  int world_size = 0;
  std::vector<RankFileEntry> entries;
};

std::string encode_rank_file_header(const RankFileHeader& header);
// The header of `file`, checked: it has checksums and its "brisk.sharded" entry is of
// `generation`, `rank` and `world_size`. Errors name the file and what differs.
RankFileHeader read_rank_file_header(const SafetensorsReader& file, int64_t generation, int rank, int world_size);

}  // namespace brisk::checkpoint
