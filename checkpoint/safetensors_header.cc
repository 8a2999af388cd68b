#include "checkpoint/safetensors_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr const char* kMetadataKey = "__metadata__";

struct DTypeName {
  DType dtype;
  const char* name;
};
constexpr DTypeName kDTypeNames[] = {
    {kFloat32, "F32"}, {kFloat64, "F64"}, {kInt64, "I64"},     {kInt32, "I32"},
    {kUInt8, "U8"},    {kBool, "BOOL"},   {kBFloat16, "BF16"}, {kFloat16, "F16"},
};

ordered_json entry_json(const TensorEntry& t) {
  return {{"dtype", safetensors_dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {t.begin, t.end}}};
}

// Where `name`'s entry starts in the file, for error messages: the first place its key
// appears in the header (the header starts at byte 8).
uint64_t entry_offset(const std::string& json, const std::string& name) {
  size_t at = json.find(ordered_json(name).dump());
  return kHeaderLengthBytes + (at == std::string::npos ? 0 : at);
}

// An unsigned integer of the header: JSON integers only, not 3.0 or -1 (the parser stores every
// non-negative integer as unsigned).
bool read_unsigned(const ordered_json& value, uint64_t* out) {
  if (!value.is_number_unsigned()) return false;
  *out = value.get<uint64_t>();
  return true;
}

// Parses text as JSON, remembering a name that occurs twice at the top level (nlohmann
// would silently keep the last one).
ordered_json parse_json(const std::string& json, const std::string& file, std::string* duplicate) {
  std::set<std::string> names;
  auto note_keys = [&](int depth, ordered_json::parse_event_t event, ordered_json& parsed) {
    if (depth == 1 && event == ordered_json::parse_event_t::key && duplicate->empty()) {
      if (!names.insert(parsed.get<std::string>()).second) *duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    return ordered_json::parse(json, note_keys);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts from 1 at the header's first byte.
    BRISK_FAIL("safetensors '{}': the header is not valid JSON at byte {}: {}", file,
               kHeaderLengthBytes + (e.byte > 0 ? e.byte - 1 : 0), e.what());
  }
}

Metadata parse_metadata(const ordered_json& value, const std::string& json, const std::string& file) {
  Metadata metadata;
  if (value.is_null()) return metadata;
  uint64_t at = entry_offset(json, kMetadataKey);
  BRISK_CHECK(value.is_object(), "safetensors '{}': \"{}\" at byte {} should be an object, got {}", file, kMetadataKey,
              at, value.type_name());
  for (const auto& [key, item] : value.items()) {
    BRISK_CHECK(item.is_string(), "safetensors '{}': \"{}\" at byte {}: the value of \"{}\" should be a string, got {}",
                file, kMetadataKey, at, key, item.dump());
    metadata.emplace(key, item.get<std::string>());
  }
  return metadata;
}

TensorEntry parse_entry(const std::string& name, const ordered_json& value, const std::string& json,
                        const std::string& file) {
  uint64_t at = entry_offset(json, name);
  auto fail = [&](const std::string& what) {
    BRISK_FAIL("safetensors '{}': tensor \"{}\" (header byte {}): {}", file, name, at, what);
  };
  if (!value.is_object()) fail(fmt::format("should be an object, got {}", value.dump()));
  for (const auto& [key, item] : value.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") fail(fmt::format("unknown field \"{}\"", key));
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!value.contains(key)) fail(fmt::format("missing field \"{}\"", key));
  }

  TensorEntry entry;
  entry.name = name;
  const ordered_json& dtype = value["dtype"];
  if (!dtype.is_string() || !parse_safetensors_dtype(dtype.get<std::string>(), &entry.dtype)) {
    fail(fmt::format("unsupported dtype {} (Brisk reads F32, F64, I64, I32, U8, BOOL, BF16, F16)", dtype.dump()));
  }

  const ordered_json& shape = value["shape"];
  if (!shape.is_array()) fail(fmt::format("\"shape\" should be a list of sizes, got {}", shape.dump()));
  // The byte size, kept from overflowing: a corrupt shape must fail here, not in an allocation.
  uint64_t bytes = element_size(entry.dtype);
  for (const ordered_json& size : shape) {
    uint64_t n = 0;
    if (!read_unsigned(size, &n) || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(fmt::format("\"shape\" {} should hold non-negative integers", shape.dump()));
    }
    if (n != 0 && bytes > std::numeric_limits<uint64_t>::max() / n) {
      fail(fmt::format("shape {} is too large", shape.dump()));
    }
    bytes *= n;
    entry.shape.push_back(static_cast<int64_t>(n));
  }

  const ordered_json& offsets = value["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !read_unsigned(offsets[0], &entry.begin) ||
      !read_unsigned(offsets[1], &entry.end)) {
    fail(fmt::format("\"data_offsets\" should be [begin, end] with non-negative integers, got {}", offsets.dump()));
  }
  if (entry.end < entry.begin) fail(fmt::format("\"data_offsets\" {} end before they begin", offsets.dump()));
  if (entry.end - entry.begin != bytes) {
    fail(fmt::format("\"data_offsets\" {} hold {} bytes, but {} {} needs {}", offsets.dump(), entry.end - entry.begin,
                     safetensors_dtype_name(entry.dtype), shape.dump(), bytes));
  }
  return entry;
}

// The tensors must tile the data exactly: each begins where the previous one ends.
void check_coverage(const std::vector<TensorEntry>& tensors, uint64_t data_bytes, uint64_t header_bytes,
                    const std::string& file) {
  const uint64_t data_start = kHeaderLengthBytes + header_bytes;
  uint64_t covered = 0;
  const TensorEntry* previous = nullptr;
  for (const TensorEntry& t : tensors) {
    if (t.begin != covered) {
      BRISK_FAIL("safetensors '{}': tensor \"{}\" starts at data byte {} (file byte {}), but {} ends at data byte {}: "
                 "the data_offsets {}",
                 file, t.name, t.begin, data_start + t.begin,
                 previous ? fmt::format("tensor \"{}\"", previous->name) : std::string("the data before it"), covered,
                 t.begin > covered ? "leave a gap" : "overlap");
    }
    BRISK_CHECK(t.end <= data_bytes,
                "safetensors '{}': tensor \"{}\" ends at file byte {}, but the file ends at byte {} (truncated?)", file,
                t.name, data_start + t.end, data_start + data_bytes);
    covered = t.end;
    previous = &t;
  }
  BRISK_CHECK(covered == data_bytes,
              "safetensors '{}': the tensors end at file byte {}, but the file goes on to byte {} ({} bytes that no "
              "tensor claims)",
              file, data_start + covered, data_start + data_bytes, data_bytes - covered);
}

}  // namespace

const char* safetensors_dtype_name(DType dtype) {
  for (const DTypeName& d : kDTypeNames) {
    if (d.dtype == dtype) return d.name;
  }
  BRISK_FAIL("safetensors: no name for dtype {}", dtype);
}

bool parse_safetensors_dtype(const std::string& name, DType* dtype) {
  for (const DTypeName& d : kDTypeNames) {
    if (name == d.name) {
      *dtype = d.dtype;
      return true;
    }
  }
  return false;
}

std::string encode_entry(const TensorEntry& entry) { return entry_json(entry).dump(); }

std::string encode_header(const SafetensorsHeader& header) {
  ordered_json json = ordered_json::object();
  if (!header.metadata.empty()) json[kMetadataKey] = header.metadata;
  for (const TensorEntry& t : header.tensors) json[t.name] = entry_json(t);
  std::string text = json.dump();
  text.append((8 - (kHeaderLengthBytes + text.size()) % 8) % 8, ' ');
  return text;
}

SafetensorsHeader parse_header(const std::string& json, uint64_t data_bytes, const std::string& file) {
  std::string duplicate;
  ordered_json parsed = parse_json(json, file, &duplicate);
  BRISK_CHECK(parsed.is_object(), "safetensors '{}': the header at byte {} should be a JSON object, got {}", file,
              kHeaderLengthBytes, parsed.type_name());
  BRISK_CHECK(duplicate.empty(), "safetensors '{}': \"{}\" appears twice in the header (byte {})", file, duplicate,
              entry_offset(json, duplicate));

  SafetensorsHeader header;
  for (const auto& [name, value] : parsed.items()) {
    if (name == kMetadataKey) {
      header.metadata = parse_metadata(value, json, file);
    } else {
      header.tensors.push_back(parse_entry(name, value, json, file));
    }
  }
  std::stable_sort(header.tensors.begin(), header.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return std::make_pair(a.begin, a.end) < std::make_pair(b.begin, b.end);
  });
  check_coverage(header.tensors, data_bytes, json.size(), file);
  return header;
}

}  // namespace brisk::checkpoint
