// data::ByteText: a file's or a directory's bytes split into training and held-out parts,
// random windows (inputs and next-byte targets) and consecutive ones, and the errors.
#include "data/byte_text.h"

#include <catch2/catch.hpp>

#include <string>

#include "tests/scratch_files.h"

namespace brisk::data {
namespace {

using Catch::Matchers::Contains;

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

TEST_CASE("ByteText holds out the last part; from_path reads a file, or a directory's files in name order") {
  ByteText text(bytes_of("abcdefghijklmnopqrst"), 0.25);
  CHECK(text.train() == bytes_of("abcdefghijklmno"));
  CHECK(text.held_out() == bytes_of("pqrst"));

  const std::string dir = testing::scratch_dir("byte_text");
  testing::write_bytes(dir + "/b.txt", bytes_of("world"));
  testing::write_bytes(dir + "/a.txt", bytes_of("hello "));
  testing::write_bytes(dir + "/a.dat", bytes_of("index"));  // fortune's indexes are left out
  CHECK(ByteText::from_path(dir, 0.0).train() == bytes_of("hello world"));
  CHECK(ByteText::from_path(dir + "/b.txt", 0.0).train() == bytes_of("world"));
  CHECK_THROWS_WITH(ByteText::from_path(dir + "/missing"), Contains("cannot read the text '" + dir + "/missing'"));
  testing::write_bytes(dir + "/empty", {});
  CHECK_THROWS_WITH(ByteText::from_path(dir + "/empty"), Contains("holds no bytes"));
  CHECK_THROWS_WITH(ByteText(bytes_of("ab"), 1.0), Contains("held_out_fraction must be in [0, 1)"));
}

TEST_CASE("random_windows: inputs and their next bytes, drawn from the generator") {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 100; ++i) bytes.push_back(static_cast<uint8_t>(i));
  Generator a(7), b(7);
  TokenBatch batch = random_windows(bytes, 5, 8, a);
  REQUIRE(batch.inputs.sizes() == Shape{5, 8});
  REQUIRE(batch.inputs.dtype() == kInt64);
  const std::vector<int64_t> in = batch.inputs.to_vector<int64_t>(), out = batch.targets.to_vector<int64_t>();
  for (int64_t r = 0; r < 5; ++r) {
    CHECK(in[r * 8] + 8 <= 99);  // the window's last target is in the text
    for (int64_t t = 0; t < 8; ++t) {
      CHECK(in[r * 8 + t] == in[r * 8] + t);
      CHECK(out[r * 8 + t] == in[r * 8 + t] + 1);
    }
  }
  CHECK(random_windows(bytes, 5, 8, b).inputs.to_vector<int64_t>() == in);
  CHECK_THROWS_WITH(random_windows(bytes_of("abc"), 1, 3, a), Contains("3 bytes are fewer than one window"));
}

TEST_CASE("consecutive_windows cover the text, each byte but the first a target once") {
  const std::vector<uint8_t> bytes = bytes_of("0123456789a");  // 11 bytes: (11 - 1) / 4 = 2 windows of 5
  CHECK(window_count(bytes, 4) == 2);
  TokenBatch all = consecutive_windows(bytes, 4, 0, 10);
  REQUIRE(all.inputs.sizes() == Shape{2, 4});
  CHECK(all.inputs.to_vector<int64_t>() == std::vector<int64_t>{'0', '1', '2', '3', '4', '5', '6', '7'});
  CHECK(all.targets.to_vector<int64_t>() == std::vector<int64_t>{'1', '2', '3', '4', '5', '6', '7', '8'});
  CHECK(consecutive_windows(bytes, 4, 1, 10).inputs.sizes() == Shape{1, 4});
  CHECK(window_count(bytes_of("abcd"), 4) == 0);
}

}  // namespace
}  // namespace brisk::data
