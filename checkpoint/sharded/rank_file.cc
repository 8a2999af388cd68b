#include "checkpoint/sharded/rank_file.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "checkpoint/checksums.h"
#include "tensor/error.h"

namespace brisk::checkpoint {

int64_t block_rows_for(int64_t rows, int64_t row_bytes) {
  const int64_t by_bytes = kBlockBytes / std::max<int64_t>(1, row_bytes);
  const int64_t by_count = (rows + kMinBlocks - 1) / kMinBlocks;
  return std::max<int64_t>(1, std::min(by_bytes, by_count));
}

std::vector<uint64_t> block_checksums(const void* data, int64_t rows, int64_t row_bytes, int64_t block_rows) {
  std::vector<uint64_t> out;
  const char* bytes = static_cast<const char*>(data);
  for (int64_t begin = 0; begin < rows; begin += block_rows) {
    const int64_t n = std::min(block_rows, rows - begin);
    out.push_back(checksum(bytes + begin * row_bytes, static_cast<size_t>(n * row_bytes)));
  }
  return out;
}

std::string encode_rank_file_header(const RankFileHeader& header) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const RankFileEntry& e : header.entries) {
    nlohmann::ordered_json json = {{"name", e.name},
                                   {"dtype", safetensors_dtype_name(e.dtype)},
                                   {"shape", e.shape},
                                   {"begin", e.rows.begin},
                                   {"rows", e.rows.rows}};
    if (e.replicated) json["replicated"] = true;
    if (e.block_rows > 0) {
      json["block_rows"] = e.block_rows;
      nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
      for (uint64_t c : e.block_checksums) blocks.push_back(fmt::format("{:016x}", c));
      json["blocks"] = blocks;
    }
    entries.push_back(json);
  }
  return nlohmann::ordered_json{
      {"generation", header.generation}, {"rank", header.rank}, {"world_size", header.world_size}, {"entries", entries}}
      .dump();
}

RankFileHeader read_rank_file_header(const SafetensorsReader& file, int64_t generation, int rank, int world_size) {
  const std::string& path = file.path();
  BRISK_CHECK(file.has_checksums(), "sharded checkpoint file '{}' has no checksums: not a file save_sharded wrote",
              path);
  auto found = file.header().metadata.find(kRankFileKey);
  BRISK_CHECK(found != file.header().metadata.end(),
              "sharded checkpoint file '{}' has no \"{}\" metadata: not a file save_sharded wrote", path, kRankFileKey);
  RankFileHeader header;
  try {
    const nlohmann::json json = nlohmann::json::parse(found->second);
    header.generation = json.at("generation").get<int64_t>();
    header.rank = json.at("rank").get<int>();
    header.world_size = json.at("world_size").get<int>();
    for (const nlohmann::json& e : json.at("entries")) {
      RankFileEntry entry;
      entry.name = e.at("name").get<std::string>();
      BRISK_CHECK(parse_safetensors_dtype(e.at("dtype").get<std::string>(), &entry.dtype),
                  "sharded checkpoint file '{}': entry \"{}\" has dtype {}", path, entry.name, e.at("dtype").dump());
      entry.shape = e.at("shape").get<std::vector<int64_t>>();
      entry.replicated = e.value("replicated", false);
      entry.rows = {e.at("begin").get<int64_t>(), e.at("rows").get<int64_t>()};
      entry.block_rows = e.value("block_rows", int64_t{0});
      for (const nlohmann::json& block : e.value("blocks", nlohmann::json::array())) {
        entry.block_checksums.push_back(std::stoull(block.get<std::string>(), nullptr, 16));
      }
      header.entries.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& e) {
    BRISK_FAIL("sharded checkpoint file '{}': metadata \"{}\" is malformed: {}", path, kRankFileKey, e.what());
  } catch (const std::logic_error& e) {  // a block checksum that is no hex number
    BRISK_FAIL("sharded checkpoint file '{}': metadata \"{}\" is malformed: {}", path, kRankFileKey, e.what());
  }
  BRISK_CHECK(header.generation == generation && header.rank == rank && header.world_size == world_size,
              "sharded checkpoint file '{}' was written by rank {} of {} in generation {}, but the index expects "
              "rank {} of {} in generation {}",
              path, header.rank, header.world_size, header.generation, rank, world_size, generation);
  return header;
}

}  // namespace brisk::checkpoint
