// encode_png: a file any PNG reader accepts (checked chunk by chunk with zlib), holding
// exactly the pixels given.
#include "tools/train/png_writer.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"
#include "tests/tools/train/png_decode.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

TEST_CASE("encode_png: 8-bit RGB, valid chunks, the pixels given, row by row") {
  const int width = 5, height = 3;
  std::vector<uint8_t> rgb(3 * width * height);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>(i * 7);  // every pixel different
  testing::DecodedPng png = testing::decode_png(encode_png(width, height, rgb));
  REQUIRE(png.width == width);
  REQUIRE(png.height == height);
  REQUIRE(png.rgb == rgb);
}

TEST_CASE("encode_png: one pixel, and sizes that do not match") {
  testing::DecodedPng one = testing::decode_png(encode_png(1, 1, {255, 0, 128}));
  REQUIRE(one.rgb == std::vector<uint8_t>{255, 0, 128});
  REQUIRE_THROWS_WITH(encode_png(2, 2, std::vector<uint8_t>(11)),
                      Contains("11 bytes for a 2x2 RGB image, which needs 12"));
  REQUIRE_THROWS_WITH(encode_png(0, 2, {}), Contains("0x2"));
}
