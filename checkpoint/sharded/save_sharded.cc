#include "checkpoint/sharded/save_sharded.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "checkpoint/atomic_file.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/safetensors_reader.h"
#include "checkpoint/sharded/rank_errors.h"
#include "checkpoint/sharded/rank_file.h"
#include "checkpoint/sharded/sharded_index.h"
#include "distributed/host_value_collectives.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

namespace fs = std::filesystem;

// Rank 0, before anyone writes: creates the directory; the generation after every one in it.
int64_t next_generation(const std::string& directory) {
  fs::create_directories(directory);
  int64_t newest = 0;
  for (const fs::directory_entry& item : fs::directory_iterator(directory)) {
    int64_t generation = 0;
    if (parse_rank_file_name(item.path().filename().string(), &generation)) newest = std::max(newest, generation);
  }
  // A corrupt index is replaced all the same; its files, named above, still count.
  try {
    if (fs::exists(fs::path(directory) / kIndexFileName)) newest = std::max(newest, read_index(directory).generation);
  } catch (const Error&) {
  }
  return newest + 1;
}

void write_rank_file(const std::string& directory, const ShardedStateDict& state, int rank, int world_size,
                     int64_t generation) {
  nn::StateDict tensors;
  RankFileHeader header{generation, rank, world_size, {}};
  for (const auto& [name, tensor] : state) {
    BRISK_CHECK(tensor.local.defined(), "entry \"{}\" has no local tensor", name);
    RankFileEntry entry{name, tensor.local.dtype(), tensor.global_shape, tensor.replicated, tensor.rows, 0, {}};
    const bool written = tensor.replicated ? rank == 0 && tensor.rows.rows > 0 : tensor.rows.rows > 0;
    if (written) {
      const Tensor host = tensor.local.detach().to(kCPU).contiguous();
      const int64_t row_bytes = static_cast<int64_t>(host.nbytes()) / tensor.rows.rows;
      entry.block_rows = block_rows_for(tensor.rows.rows, row_bytes);
      entry.block_checksums = block_checksums(host.raw_data(), tensor.rows.rows, row_bytes, entry.block_rows);
      tensors.insert(name, host);
    }
    header.entries.push_back(std::move(entry));
  }
  const std::string path = directory + "/" + rank_file_name(rank, world_size, generation);
  save_safetensors(path, tensors, {{kRankFileKey, encode_rank_file_header(header)}}, Checksums::kWrite);
}

// Rank 0, once every rank's file is durable: the index of what the files hold, checked.
ShardedIndex build_index(const std::string& directory, int world_size, int64_t generation, const Metadata& metadata) {
  ShardedIndex index;
  index.generation = generation;
  index.world_size = world_size;
  index.metadata = metadata;
  for (int r = 0; r < world_size; ++r) {
    index.files.push_back(rank_file_name(r, world_size, generation));
    const std::string path = directory + "/" + index.files.back();
    SafetensorsReader file(path);
    const RankFileHeader header = read_rank_file_header(file, generation, r, world_size);
    if (r == 0) {
      for (const RankFileEntry& e : header.entries)
        index.entries.push_back({e.name, e.dtype, e.shape, e.replicated, {}});
    }
    BRISK_CHECK(header.entries.size() == index.entries.size(),
                "'{}' (rank {}) has {} entries, rank 0's file {}: every rank saves the same entries", path, r,
                header.entries.size(), index.entries.size());
    for (size_t i = 0; i < header.entries.size(); ++i) {
      const RankFileEntry& mine = header.entries[i];
      IndexEntry& entry = index.entries[i];
      BRISK_CHECK(mine.name == entry.name && mine.dtype == entry.dtype && mine.shape == entry.shape &&
                      mine.replicated == entry.replicated,
                  "'{}' (rank {}): entry {} is \"{}\" {} {}{}, but on rank 0 \"{}\" {} {}{}: every rank saves the same "
                  "entries in the same order",
                  path, r, i, mine.name, mine.dtype, mine.shape, mine.replicated ? " replicated" : "", entry.name,
                  entry.dtype, entry.shape, entry.replicated ? " replicated" : "");
      if (mine.rows.rows > 0 && (!entry.replicated || r == 0)) entry.shards.push_back({r, mine.rows});
    }
  }
  for (IndexEntry& entry : index.entries) {
    std::sort(entry.shards.begin(), entry.shards.end(),
              [](const ShardPiece& a, const ShardPiece& b) { return a.rows.begin < b.rows.begin; });
  }
  // The index's own checks: every entry's rows covered once.
  parse_index(encode_index(index), directory + "/" + kIndexFileName);
  return index;
}

// Rank 0, after the index is in place: the files of other generations.
void remove_other_generations(const std::string& directory, int64_t generation) {
  for (const fs::directory_entry& item : fs::directory_iterator(directory)) {
    int64_t g = 0;
    if (parse_rank_file_name(item.path().filename().string(), &g) && g != generation) fs::remove(item.path());
  }
  remove_stale_temporaries(directory, [](const std::string& target) {
    int64_t g = 0;
    return target == kIndexFileName || parse_rank_file_name(target, &g);
  });
}

std::string describe(const std::exception& e) { return e.what(); }

}  // namespace

void save_sharded(const std::string& directory, const ShardedStateDict& state, dist::ProcessGroup& group,
                  const Metadata& metadata) {
  const int rank = group.rank();
  const int world_size = group.size();
  const std::string what = fmt::format("save_sharded '{}'", directory);

  std::string error;
  int64_t generation = 0;
  if (rank == 0) {
    try {
      generation = next_generation(directory);
    } catch (const std::exception& e) {
      error = fmt::format("{} on rank 0: preparing the directory: {}", what, describe(e));
    }
  }
  raise_if_any_rank_failed(group, error, what);
  generation = dist::broadcast_values(group, {generation}, 0)[0];

  try {
    write_rank_file(directory, state, rank, world_size, generation);
  } catch (const std::exception& e) {
    error = fmt::format("{} on rank {}: writing its file: {}", what, rank, describe(e));
  }
  raise_if_any_rank_failed(group, error, what);

  if (rank == 0) {
    try {
      const ShardedIndex index = build_index(directory, world_size, generation, metadata);
      const std::string text = encode_index(index);
      AtomicFile out(directory + "/" + kIndexFileName);
      out.write(text.data(), text.size());
      out.commit();
      remove_other_generations(directory, generation);
    } catch (const std::exception& e) {
      error = fmt::format("{} on rank 0: writing the index: {}", what, describe(e));
    }
  }
  raise_if_any_rank_failed(group, error, what);
}

}  // namespace brisk::checkpoint
