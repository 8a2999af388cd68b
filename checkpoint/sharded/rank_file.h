#pragma once
// What a sharded checkpoint's rank file says about itself: its "__metadata__" entry
// "brisk.sharded" records the generation, the rank, the world size and every entry of that
// rank's state dict (rows it holds, none included), so that rank 0 builds the index from the
// durable files and a loader tells a file of another save from the one its index names.
//
//   {"generation": 3, "rank": 1, "world_size": 2,
//    "entries": [{"name": "fc.weight", "dtype": "F32", "shape": [5, 4], "begin": 3, "rows": 2,
//                 "block_rows": 2, "blocks": ["9f2c03a1b4e5d6c7"]}, ...]}
//
// "blocks" are XXH3-64 checksums of the tensor's data in blocks of "block_rows" rows (the last
// one shorter), so that a loader reading some rows of a shard reads and checks only the blocks
// that hold them; the file's own checksums (checksums.h) cover this metadata and the whole
// tensors.
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
  dist::RowRange rows;     // this rank's; a tensor in the file when rows.rows > 0 (replicated: rank 0 only)
  int64_t block_rows = 0;  // of the tensor in the file; 0 when there is none
  std::vector<uint64_t> block_checksums;  // one per block of block_rows rows
};

// Rows per block of a shard of `rows` rows of `row_bytes` bytes: at most about kBlockBytes a
// block, and at least kMinBlocks blocks when it has that many rows, so that a reader of a few
// rows reads little more than them.
constexpr int64_t kBlockBytes = 1 << 20;
constexpr int64_t kMinBlocks = 16;
int64_t block_rows_for(int64_t rows, int64_t row_bytes);
// The checksums of `rows` rows of `row_bytes` bytes at `data`, in blocks of `block_rows`.
std::vector<uint64_t> block_checksums(const void* data, int64_t rows, int64_t row_bytes, int64_t block_rows);

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
