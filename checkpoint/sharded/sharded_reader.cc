#include "checkpoint/sharded/sharded_reader.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "checkpoint/checksums.h"
#include "checkpoint/sharded/rank_errors.h"
#include "checkpoint/sharded/rank_file.h"
#include "tensor/error.h"

namespace brisk::checkpoint {

ShardedReader::ShardedReader(std::string directory) : directory_(std::move(directory)) {
  index_ = read_index(directory_);
}

ShardedReader::~ShardedReader() = default;

const IndexEntry* ShardedReader::find(const std::string& name) const {
  for (const IndexEntry& e : index_.entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const IndexEntry& ShardedReader::entry(const std::string& name) const {
  const IndexEntry* found = find(name);
  BRISK_CHECK(found != nullptr, "sharded checkpoint '{}' has no entry \"{}\"", directory_, name);
  return *found;
}

struct ShardedReader::RankFile {
  std::unique_ptr<SafetensorsReader> reader;
  RankFileHeader header;

  const RankFileEntry* find(const std::string& name) const {
    for (const RankFileEntry& e : header.entries) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }
};

const ShardedReader::RankFile& ShardedReader::file(int rank) {
  auto it = files_.find(rank);
  if (it != files_.end()) return *it->second;
  const std::string path = directory_ + "/" + index_.files.at(static_cast<size_t>(rank));
  struct stat info {};
  BRISK_CHECK(::stat(path.c_str(), &info) == 0,
              "sharded checkpoint '{}': the file of rank {}, '{}', is missing (the index names it)", directory_, rank,
              path);
  auto opened = std::make_unique<RankFile>();
  opened->reader = std::make_unique<SafetensorsReader>(path);
  opened->header = read_rank_file_header(*opened->reader, index_.generation, rank, index_.world_size);
  return *files_.emplace(rank, std::move(opened)).first->second;
}

namespace {

// Rows [first, first + count) of a stored shard of `shard_rows` rows, read block by block from
// `file` and checked against the blocks' checksums, into `out`.
void read_rows(const SafetensorsReader& file, const TensorEntry& stored, const RankFileEntry& meta, int64_t shard_rows,
               int64_t first, int64_t count, void* out, const std::string& directory) {
  const int64_t block = meta.block_rows;
  BRISK_CHECK(block > 0 && static_cast<int64_t>(meta.block_checksums.size()) == (shard_rows + block - 1) / block,
              "sharded checkpoint '{}': '{}' has no block checksums of \"{}\" for its {} rows", directory, file.path(),
              stored.name, shard_rows);
  const int64_t row_bytes = static_cast<int64_t>(stored.end - stored.begin) / shard_rows;
  const int64_t first_block = first / block, last_block = (first + count - 1) / block;
  const int64_t row0 = first_block * block, row_end = std::min((last_block + 1) * block, shard_rows);
  std::vector<char> bytes(static_cast<size_t>((row_end - row0) * row_bytes));
  file.read_bytes(stored, static_cast<uint64_t>(row0 * row_bytes), bytes.size(), bytes.data());
  for (int64_t b = first_block; b <= last_block; ++b) {
    const int64_t begin = b * block, rows = std::min(block, shard_rows - begin);
    const uint64_t got = checksum(bytes.data() + (begin - row0) * row_bytes, static_cast<size_t>(rows * row_bytes));
    BRISK_CHECK(got == meta.block_checksums[static_cast<size_t>(b)],
                "sharded checkpoint '{}': '{}': rows [{}, {}) of tensor \"{}\" (its bytes [{}, {})) do not match "
                "their checksum: the file is corrupt",
                directory, file.path(), begin, begin + rows, stored.name, begin * row_bytes,
                (begin + rows) * row_bytes);
  }
  std::memcpy(out, bytes.data() + (first - row0) * row_bytes, static_cast<size_t>(count * row_bytes));
}

}  // namespace

Tensor ShardedReader::read(const std::string& name, dist::RowRange rows) {
  autograd::NoGradGuard no_grad;
  const IndexEntry& e = entry(name);
  const int64_t dim0 = dim0_rows(e.shape);
  BRISK_CHECK(rows.begin >= 0 && rows.rows >= 0 && rows.begin + rows.rows <= dim0,
              "sharded checkpoint '{}': entry \"{}\" is {}, it has no rows [{}, {})", directory_, name, e.shape,
              rows.begin, rows.begin + rows.rows);
  Tensor out = empty(local_shape(e.shape, rows), e.dtype);
  const int64_t end = rows.begin + rows.rows;
  for (const ShardPiece& piece : e.shards) {
    const int64_t piece_end = piece.rows.begin + piece.rows.rows;
    const int64_t from = std::max(rows.begin, piece.rows.begin), to = std::min(end, piece_end);
    if (from >= to) continue;
    const RankFile& f = file(piece.rank);
    const TensorEntry* stored = f.reader->find(name);
    BRISK_CHECK(stored != nullptr,
                "sharded checkpoint '{}': '{}' (rank {}) has no tensor \"{}\", which the index says "
                "holds rows [{}, {})",
                directory_, f.reader->path(), piece.rank, name, piece.rows.begin, piece_end);
    const Shape expected = local_shape(e.shape, piece.rows);
    BRISK_CHECK(stored->shape == expected && stored->dtype == e.dtype,
                "sharded checkpoint '{}': '{}' (rank {}) holds \"{}\" as {} {}, but the index says rows [{}, {}) of {} "
                "{}: {} {}",
                directory_, f.reader->path(), piece.rank, name, stored->dtype, stored->shape, piece.rows.begin,
                piece_end, e.dtype, e.shape, e.dtype, expected);
    const RankFileEntry* meta = f.find(name);
    if (to - from == piece.rows.rows || e.dtype == kBool || meta == nullptr) {
      // Every row of the shard (or bools, whose bytes the whole read checks): the whole tensor.
      Tensor shard = f.reader->read(*stored);
      out.narrow(0, from - rows.begin, to - from).copy_(shard.narrow(0, from - piece.rows.begin, to - from));
      continue;
    }
    const int64_t row_bytes = static_cast<int64_t>(out.nbytes()) / std::max<int64_t>(1, rows.rows);
    read_rows(*f.reader, *stored, *meta, piece.rows.rows, from - piece.rows.begin, to - from,
              static_cast<char*>(out.raw_data()) + (from - rows.begin) * row_bytes, directory_);
  }
  return out;
}

Tensor ShardedReader::read(const std::string& name) {
  const IndexEntry& e = entry(name);
  Tensor rows = read(name, {0, dim0_rows(e.shape)});
  return e.shape.empty() ? rows.view(Shape{}) : rows;
}

void ShardedReader::load(ShardedStateDict& state) {
  autograd::NoGradGuard no_grad;
  for (auto& [name, target] : state) {
    const IndexEntry& e = entry(name);
    BRISK_CHECK(e.shape == target.global_shape && e.dtype == target.local.dtype(),
                "sharded checkpoint '{}': entry \"{}\" is {} {}, but the state to load it into has {} {}", directory_,
                name, e.dtype, e.shape, target.local.dtype(), target.global_shape);
    target.local.copy_(read(name, target.rows));
  }
}

void load_sharded(const std::string& directory, ShardedStateDict& state, dist::ProcessGroup* group) {
  if (group == nullptr) {
    ShardedReader(directory).load(state);
    return;
  }
  std::string error;
  try {
    ShardedReader(directory).load(state);
  } catch (const std::exception& e) {
    error = fmt::format("load_sharded '{}' on rank {}: {}", directory, group->rank(), e.what());
  }
  raise_if_any_rank_failed(*group, error, fmt::format("load_sharded '{}'", directory));
}

}  // namespace brisk::checkpoint
