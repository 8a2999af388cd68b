#include "checkpoint/sharded/sharded_index.h"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

using ordered_json = nlohmann::ordered_json;

int64_t dim0_of(const Shape& shape) { return shape.empty() ? 1 : shape[0]; }

// A field of `object`, with errors naming the index file and where the field is.
template <typename T>
T field(const ordered_json& object, const char* name, const std::string& where, const std::string& path) {
  BRISK_CHECK(object.is_object() && object.contains(name), "sharded checkpoint index '{}': {} has no field \"{}\"",
              path, where, name);
  try {
    return object.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    BRISK_FAIL("sharded checkpoint index '{}': {}: field \"{}\" has the wrong type: {}", path, where, name,
               object.at(name).dump());
  }
}

IndexEntry parse_entry(const ordered_json& json, int world_size, const std::string& path) {
  IndexEntry entry;
  entry.name = field<std::string>(json, "name", "an entry", path);
  const std::string where = fmt::format("entry \"{}\"", entry.name);
  const std::string dtype = field<std::string>(json, "dtype", where, path);
  BRISK_CHECK(parse_safetensors_dtype(dtype, &entry.dtype), "sharded checkpoint index '{}': {} has dtype \"{}\"", path,
              where, dtype);
  for (int64_t size : field<std::vector<int64_t>>(json, "shape", where, path)) {
    BRISK_CHECK(size >= 0, "sharded checkpoint index '{}': {} has a negative size in its shape", path, where);
    entry.shape.push_back(size);
  }
  entry.replicated = json.contains("replicated") && field<bool>(json, "replicated", where, path);
  int64_t next = 0;
  for (const ordered_json& shard : field<ordered_json>(json, "shards", where, path)) {
    ShardPiece piece;
    piece.rank = field<int>(shard, "rank", where, path);
    piece.rows.begin = field<int64_t>(shard, "begin", where, path);
    piece.rows.rows = field<int64_t>(shard, "rows", where, path);
    BRISK_CHECK(piece.rank >= 0 && piece.rank < world_size,
                "sharded checkpoint index '{}': {} names rank {}, but the checkpoint has ranks 0..{}", path, where,
                piece.rank, world_size - 1);
    BRISK_CHECK(piece.rows.begin == next && piece.rows.rows > 0,
                "sharded checkpoint index '{}': {}'s shard of rank {} holds rows [{}, {}), but the rows before it end "
                "at {}: the shards must cover dim 0 in order",
                path, where, piece.rank, piece.rows.begin, piece.rows.begin + piece.rows.rows, next);
    next += piece.rows.rows;
    entry.shards.push_back(piece);
  }
  const int64_t rows = dim0_of(entry.shape);
  BRISK_CHECK(next == rows || (rows == 0 && entry.shards.empty()),
              "sharded checkpoint index '{}': {}'s shards cover rows [0, {}) of its {} rows", path, where, next, rows);
  BRISK_CHECK(!entry.replicated || entry.shards.size() <= 1,
              "sharded checkpoint index '{}': {} is replicated but has {} shards", path, where, entry.shards.size());
  return entry;
}

}  // namespace

std::string rank_file_name(int rank, int world_size, int64_t generation) {
  return fmt::format("rank-{:05d}-of-{:05d}.gen-{}.safetensors", rank, world_size, generation);
}

bool parse_rank_file_name(const std::string& file_name, int64_t* generation) {
  int rank = 0, world_size = 0, used = 0;
  long long gen = 0;
  if (std::sscanf(file_name.c_str(), "rank-%5d-of-%5d.gen-%lld.safetensors%n", &rank, &world_size, &gen, &used) != 3)
    return false;
  if (static_cast<size_t>(used) != file_name.size()) return false;
  *generation = gen;
  return true;
}

std::string encode_index(const ShardedIndex& index) {
  ordered_json entries = ordered_json::array();
  for (const IndexEntry& entry : index.entries) {
    ordered_json shards = ordered_json::array();
    for (const ShardPiece& piece : entry.shards)
      shards.push_back({{"rank", piece.rank}, {"begin", piece.rows.begin}, {"rows", piece.rows.rows}});
    ordered_json json = {{"name", entry.name}, {"dtype", safetensors_dtype_name(entry.dtype)}, {"shape", entry.shape}};
    if (entry.replicated) json["replicated"] = true;
    json["shards"] = shards;
    entries.push_back(json);
  }
  // One line per top-level field, file, entry and metadata value: readable and diffable.
  auto lines = [](const ordered_json& items) {
    std::string out;
    for (const ordered_json& item : items) out += (out.empty() ? "\n  " : ",\n  ") + item.dump();
    return out.empty() ? std::string("[]") : "[" + out + "\n ]";
  };
  std::string metadata;
  for (const auto& [key, value] : index.metadata)
    metadata += (metadata.empty() ? "\n  " : ",\n  ") + ordered_json(key).dump() + ": " + ordered_json(value).dump();
  return fmt::format(
      "{{\n \"format\": \"brisk.sharded\",\n \"version\": 1,\n \"generation\": {},\n \"world_size\": {},\n "
      "\"files\": {},\n \"entries\": {},\n \"metadata\": {}\n}}\n",
      index.generation, index.world_size, lines(ordered_json(index.files)), lines(entries),
      metadata.empty() ? std::string("{}") : "{" + metadata + "\n }");
}

ShardedIndex parse_index(const std::string& text, const std::string& path) {
  ordered_json json;
  try {
    json = ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    BRISK_FAIL("sharded checkpoint index '{}': not valid JSON: {}", path, e.what());
  }
  const std::string top = "the index";
  BRISK_CHECK(json.is_object() && json.value("format", "") == "brisk.sharded",
              "sharded checkpoint index '{}': not a Brisk sharded checkpoint index (no \"format\": \"brisk.sharded\")",
              path);
  const int version = field<int>(json, "version", top, path);
  BRISK_CHECK(version == 1, "sharded checkpoint index '{}': version {} is not supported, this build reads version 1",
              path, version);
  ShardedIndex index;
  index.generation = field<int64_t>(json, "generation", top, path);
  index.world_size = field<int>(json, "world_size", top, path);
  BRISK_CHECK(index.world_size >= 1, "sharded checkpoint index '{}': world_size {}", path, index.world_size);
  index.files = field<std::vector<std::string>>(json, "files", top, path);
  BRISK_CHECK(static_cast<int>(index.files.size()) == index.world_size,
              "sharded checkpoint index '{}': {} files for a world of {} ranks", path, index.files.size(),
              index.world_size);
  for (const ordered_json& entry : field<ordered_json>(json, "entries", top, path))
    index.entries.push_back(parse_entry(entry, index.world_size, path));
  index.metadata = field<Metadata>(json, "metadata", top, path);
  return index;
}

ShardedIndex read_index(const std::string& directory) {
  const std::string path = directory + "/" + kIndexFileName;
  std::ifstream in(path, std::ios::binary);
  BRISK_CHECK(in.good(),
              "sharded checkpoint '{}': no {} (not a sharded checkpoint, or its save did not finish: the index is "
              "written last)",
              directory, kIndexFileName);
  std::stringstream text;
  text << in.rdbuf();
  return parse_index(text.str(), path);
}

}  // namespace brisk::checkpoint
