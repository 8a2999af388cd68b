#include "checkpoint/checksums.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <nlohmann/json.hpp>

#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

constexpr const char* kAlgorithm = "xxh3-64";

std::string hex(uint64_t value) { return fmt::format("{:016x}", value); }

std::string text_checksum(const std::string& text) { return hex(checksum(text.data(), text.size())); }

// A map of names to hex checksums in the checksums entry.
std::map<std::string, std::string> read_map(const nlohmann::json& json, const char* field, const std::string& file) {
  auto fail = [&]() -> std::map<std::string, std::string> {
    BRISK_FAIL("safetensors '{}': metadata \"{}\" is corrupt: its \"{}\" should map names to {} checksums", file,
               kChecksumsKey, field, kAlgorithm);
  };
  if (!json.contains(field) || !json.at(field).is_object()) return fail();
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : json.at(field).items()) {
    if (!value.is_string()) return fail();
    out.emplace(name, value.get<std::string>());
  }
  return out;
}

// Checks that `recorded` (the checksums entry's `field`) has a checksum for exactly the names
// of `current`. `what` says what the names are ("tensor", "metadata entry").
void check_same_names(const std::map<std::string, std::string>& recorded,
                      const std::map<std::string, std::string>& current, const char* field, const char* what,
                      const std::string& file) {
  for (const auto& [name, text] : current) {
    BRISK_CHECK(recorded.count(name) != 0,
                "safetensors '{}': the header has {} \"{}\", for which \"{}\" has no checksum in \"{}\": the header "
                "is corrupt (a changed name?)",
                file, what, name, kChecksumsKey, field);
  }
  for (const auto& [name, sum] : recorded) {
    BRISK_CHECK(current.count(name) != 0,
                "safetensors '{}': \"{}\" has a checksum in \"{}\" for {} \"{}\", which the header lacks: the "
                "header is corrupt (a changed name?)",
                file, kChecksumsKey, field, what, name);
  }
}

// Checks each text of `current` (name -> the text) against its checksum in `recorded`, for
// the same names. `part` says what the text is ("header entry", "value").
void check_texts(const std::map<std::string, std::string>& recorded, const std::map<std::string, std::string>& current,
                 const char* what, const char* part, const std::string& file) {
  for (const auto& [name, text] : current) {
    BRISK_CHECK(recorded.at(name) == text_checksum(text),
                "safetensors '{}': the {} of {} \"{}\" ({}) does not match its checksum: the header is corrupt", file,
                part, what, name, text);
  }
}

std::map<std::string, std::string> entry_texts(const SafetensorsHeader& header) {
  std::map<std::string, std::string> out;
  for (const TensorEntry& t : header.tensors) out.emplace(t.name, encode_entry(t));
  return out;
}

std::map<std::string, std::string> metadata_texts(const SafetensorsHeader& header) {
  std::map<std::string, std::string> out(header.metadata.begin(), header.metadata.end());
  out.erase(kChecksumsKey);
  return out;
}

}  // namespace

uint64_t checksum(const void* data, size_t size) { return XXH3_64bits(data, size); }

std::string encode_checksums(const SafetensorsHeader& header, const std::vector<uint64_t>& data_checksums) {
  BRISK_CHECK(data_checksums.size() == header.tensors.size(), "encode_checksums: {} checksums for {} tensors",
              data_checksums.size(), header.tensors.size());
  BRISK_CHECK(header.metadata.count(kChecksumsKey) == 0, "encode_checksums: the metadata already has \"{}\"",
              kChecksumsKey);
  nlohmann::json tensors = nlohmann::json::object(), entries = nlohmann::json::object(),
                 metadata = nlohmann::json::object();
  for (size_t i = 0; i < header.tensors.size(); ++i) tensors[header.tensors[i].name] = hex(data_checksums[i]);
  for (const auto& [name, text] : entry_texts(header)) entries[name] = text_checksum(text);
  for (const auto& [key, value] : metadata_texts(header)) metadata[key] = text_checksum(value);
  return nlohmann::json{{"algorithm", kAlgorithm}, {"tensors", tensors}, {"entries", entries}, {"metadata", metadata}}
      .dump();
}

ChecksumVerifier::ChecksumVerifier(const SafetensorsHeader& header, const std::string& checksums,
                                   const std::string& file)
    : file_(file) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(checksums);
  } catch (const nlohmann::json::parse_error& e) {
    BRISK_FAIL("safetensors '{}': metadata \"{}\" is corrupt: not valid JSON: {}", file, kChecksumsKey, e.what());
  }
  BRISK_CHECK(json.is_object() && json.size() == 4 && json.contains("algorithm") && json.at("algorithm").is_string(),
              "safetensors '{}': metadata \"{}\" is corrupt: it should be an object of \"algorithm\", \"tensors\", "
              "\"entries\" and \"metadata\"",
              file, kChecksumsKey);
  const std::string algorithm = json.at("algorithm").get<std::string>();
  BRISK_CHECK(algorithm == kAlgorithm,
              "safetensors '{}': metadata \"{}\" names the checksum algorithm \"{}\"; this build knows \"{}\" (a "
              "corrupt header, or a file from a newer Brisk)",
              file, kChecksumsKey, algorithm, kAlgorithm);
  const std::map<std::string, std::string> entries = entry_texts(header), metadata = metadata_texts(header);
  const std::map<std::string, std::string> recorded_entries = read_map(json, "entries", file),
                                           recorded_metadata = read_map(json, "metadata", file);
  data_ = read_map(json, "tensors", file);
  check_same_names(recorded_entries, entries, "entries", "tensor", file);
  check_same_names(data_, entries, "tensors", "tensor", file);
  check_same_names(recorded_metadata, metadata, "metadata", "metadata entry", file);
  check_texts(recorded_entries, entries, "tensor", "header entry", file);
  check_texts(recorded_metadata, metadata, "metadata entry", "value", file);
}

void ChecksumVerifier::check_data(const TensorEntry& entry, const void* data, uint64_t file_offset) const {
  const uint64_t size = entry.end - entry.begin;
  const std::string computed = hex(checksum(data, size));
  const std::string& recorded = data_.at(entry.name);
  BRISK_CHECK(computed == recorded,
              "safetensors '{}': tensor \"{}\" (file bytes {} to {}) does not match its checksum: its data is corrupt "
              "({} {} recorded, {} read)",
              file_, entry.name, file_offset, file_offset + size, kAlgorithm, recorded, computed);
}

}  // namespace brisk::checkpoint
