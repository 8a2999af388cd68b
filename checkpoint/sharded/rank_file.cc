#include "checkpoint/sharded/rank_file.h"

#include <nlohmann/json.hpp>

#include "tensor/error.h"

namespace brisk::checkpoint {

std::string encode_rank_file_header(const RankFileHeader& header) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const RankFileEntry& e : header.entries) {
    nlohmann::ordered_json json = {{"name", e.name},
                                   {"dtype", safetensors_dtype_name(e.dtype)},
                                   {"shape", e.shape},
                                   {"begin", e.rows.begin},
                                   {"rows", e.rows.rows}};
    if (e.replicated) json["replicated"] = true;
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
      header.entries.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& e) {
    BRISK_FAIL("sharded checkpoint file '{}': metadata \"{}\" is malformed: {}", path, kRankFileKey, e.what());
  }
  BRISK_CHECK(header.generation == generation && header.rank == rank && header.world_size == world_size,
              "sharded checkpoint file '{}' was written by rank {} of {} in generation {}, but the index expects "
              "rank {} of {} in generation {}",
              path, header.rank, header.world_size, header.generation, rank, world_size, generation);
  return header;
}

}  // namespace brisk::checkpoint
