// gzip decompression: single and multiple members, padding, and the errors for bad data.
#include "data/gzip.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"
#include "tests/data/file_util.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {
std::vector<uint8_t> text(const std::string& s) { return {s.begin(), s.end()}; }
std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

TEST_CASE("gunzip restores what gzip compressed", "[data][gzip]") {
  std::vector<uint8_t> plain;
  for (int i = 0; i < 100000; ++i) plain.push_back(static_cast<uint8_t>(i * 7 % 251));
  std::vector<uint8_t> packed = data::testing::gzip(plain);
  CHECK(is_gzip(packed.data(), packed.size()));
  CHECK_FALSE(is_gzip(plain.data(), plain.size()));
  CHECK(gunzip(packed.data(), packed.size(), "mem") == plain);

  std::vector<uint8_t> empty = data::testing::gzip({});
  CHECK(gunzip(empty.data(), empty.size(), "mem").empty());
}

TEST_CASE("gunzip joins concatenated members and skips zero padding", "[data][gzip]") {
  std::vector<uint8_t> two = concat(data::testing::gzip(text("hello, ")), data::testing::gzip(text("world")));
  CHECK(gunzip(two.data(), two.size(), "mem") == text("hello, world"));
  std::vector<uint8_t> padded = concat(data::testing::gzip(text("abc")), std::vector<uint8_t>(10, 0));
  CHECK(gunzip(padded.data(), padded.size(), "mem") == text("abc"));
}

TEST_CASE("gunzip errors name the source and where the data went wrong", "[data][gzip]") {
  std::vector<uint8_t> packed = data::testing::gzip(text(std::string(1000, 'x') + "the end"));

  std::vector<uint8_t> truncated(packed.begin(), packed.end() - 10);
  CHECK_THROWS_WITH(gunzip(truncated.data(), truncated.size(), "a.gz"),
                    Contains("a.gz") && Contains("truncated gzip data") &&
                        Contains("ends at byte " + std::to_string(truncated.size())));

  std::vector<uint8_t> corrupt = packed;
  corrupt[3] = 0xff;  // reserved header flag bits
  CHECK_THROWS_WITH(gunzip(corrupt.data(), corrupt.size(), "b.gz"),
                    Contains("b.gz") && Contains("corrupt gzip data near compressed byte offset"));

  std::vector<uint8_t> garbage = concat(packed, text("junk"));
  CHECK_THROWS_WITH(gunzip(garbage.data(), garbage.size(), "c.gz"),
                    Contains("c.gz") && Contains("after the end of a gzip member") &&
                        Contains("offset " + std::to_string(packed.size())));

  std::vector<uint8_t> plain = text("plain");
  CHECK_THROWS_WITH(gunzip(plain.data(), plain.size(), "d"), Contains("d: not gzip data"));
}
