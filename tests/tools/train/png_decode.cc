#include "tests/tools/train/png_decode.h"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace brisk::train::testing {
namespace {

uint32_t read_u32(const std::string& bytes, size_t at) {
  REQUIRE(at + 4 <= bytes.size());
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

}  // namespace

DecodedPng decode_png(const std::string& bytes) {
  REQUIRE(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  std::vector<std::string> types;
  std::string header, deflated;
  for (size_t at = 8; at < bytes.size();) {
    const uint32_t length = read_u32(bytes, at);
    REQUIRE(at + 12 + length <= bytes.size());
    const std::string type = bytes.substr(at + 4, 4), data = bytes.substr(at + 8, length);
    INFO("chunk " << type << " at byte " << at);
    const auto* checked = reinterpret_cast<const Bytef*>(bytes.data() + at + 4);
    REQUIRE(read_u32(bytes, at + 8 + length) == crc32(crc32(0L, Z_NULL, 0), checked, 4 + length));
    types.push_back(type);
    if (type == "IHDR") header = data;
    if (type == "IDAT") deflated += data;
    at += 12 + length;
  }
  REQUIRE(types.size() >= 3);
  REQUIRE(types.front() == "IHDR");
  REQUIRE(types.back() == "IEND");

  DecodedPng png;
  REQUIRE(header.size() == 13);
  png.width = static_cast<int>(read_u32(header, 0));
  png.height = static_cast<int>(read_u32(header, 4));
  REQUIRE(header.substr(8) == std::string{8, 2, 0, 0, 0});  // 8-bit RGB, deflate, filter 0, not interlaced
  const size_t row_bytes = 1 + 3 * static_cast<size_t>(png.width);
  std::vector<Bytef> raw(png.height * row_bytes + 1);  // one byte more: inflating must not fill it
  uLongf raw_size = raw.size();
  REQUIRE(uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(deflated.data()), deflated.size()) == Z_OK);
  REQUIRE(raw_size == png.height * row_bytes);
  for (int y = 0; y < png.height; ++y) {
    REQUIRE(raw[y * row_bytes] == 0);
    png.rgb.insert(png.rgb.end(), raw.begin() + y * row_bytes + 1, raw.begin() + (y + 1) * row_bytes);
  }
  return png;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace brisk::train::testing
