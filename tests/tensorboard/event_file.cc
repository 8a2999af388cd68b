#include "tests/tensorboard/event_file.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tensorboard/crc32c.h"

namespace brisk::tensorboard::testing {
namespace {

uint64_t get_le(const std::string& bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

}  // namespace

std::vector<Event> read_events(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Event> events;
  for (size_t at = 0; at < bytes.size();) {
    INFO(path << ": record " << events.size() << " at byte " << at);
    REQUIRE(at + 12 <= bytes.size());
    const uint64_t length = get_le(bytes, at, 8);
    REQUIRE(get_le(bytes, at + 8, 4) == masked_crc32c(bytes.data() + at, 8));
    REQUIRE(at + 12 + length + 4 <= bytes.size());
    const std::string data = bytes.substr(at + 12, length);
    REQUIRE(get_le(bytes, at + 12 + length, 4) == masked_crc32c(data.data(), data.size()));
    REQUIRE(events.emplace_back().ParseFromString(data));
    at += 12 + length + 4;
  }
  return events;
}

std::vector<std::string> event_files(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().find("tfevents") != std::string::npos) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

Scalars read_scalars(const std::string& path) {
  const std::vector<Event> events = read_events(path);
  REQUIRE(!events.empty());
  REQUIRE(events[0].file_version() == "brain.Event:2");
  Scalars scalars;
  for (size_t i = 1; i < events.size(); ++i) {
    REQUIRE(events[i].has_summary());
    REQUIRE(events[i].summary().value_size() == 1);
    const Summary::Value& value = events[i].summary().value(0);
    REQUIRE(value.has_simple_value());
    scalars[value.tag()].emplace_back(events[i].step(), value.simple_value());
  }
  return scalars;
}

}  // namespace brisk::tensorboard::testing
