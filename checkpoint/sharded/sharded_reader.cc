#include "checkpoint/sharded/sharded_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <sys/stat.h>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
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

const SafetensorsReader& ShardedReader::file(int rank) {
  auto it = files_.find(rank);
  if (it != files_.end()) return *it->second;
  const std::string path = directory_ + "/" + index_.files.at(static_cast<size_t>(rank));
  struct stat info {};
  BRISK_CHECK(::stat(path.c_str(), &info) == 0,
              "sharded checkpoint '{}': the file of rank {}, '{}', is missing (the index names it)", directory_, rank,
              path);
  auto opened = std::make_unique<SafetensorsReader>(path);
  read_rank_file_header(*opened, index_.generation, rank, index_.world_size);
  return *files_.emplace(rank, std::move(opened)).first->second;
}

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
    const SafetensorsReader& f = file(piece.rank);
    const TensorEntry* stored = f.find(name);
    BRISK_CHECK(stored != nullptr,
                "sharded checkpoint '{}': '{}' (rank {}) has no tensor \"{}\", which the index says "
                "holds rows [{}, {})",
                directory_, f.path(), piece.rank, name, piece.rows.begin, piece_end);
    const Shape expected = local_shape(e.shape, piece.rows);
    BRISK_CHECK(stored->shape == expected && stored->dtype == e.dtype,
                "sharded checkpoint '{}': '{}' (rank {}) holds \"{}\" as {} {}, but the index says rows [{}, {}) of {} "
                "{}: {} {}",
                directory_, f.path(), piece.rank, name, stored->dtype, stored->shape, piece.rows.begin, piece_end,
                e.dtype, e.shape, e.dtype, expected);
    Tensor shard = f.read(*stored);
    out.narrow(0, from - rows.begin, to - from).copy_(shard.narrow(0, from - piece.rows.begin, to - from));
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
