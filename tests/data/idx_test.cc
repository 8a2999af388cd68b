// The IDX reader on files the test writes: every element type, plain and gzip, and one error
// per way a file can be wrong (each naming the file and the problem).
#include "data/idx.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "tensor/error.h"
#include "tests/data/file_util.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

std::vector<uint8_t> be_bytes(const void* values, size_t count, size_t width) {
  std::vector<uint8_t> out;
  const auto* raw = static_cast<const uint8_t*>(values);
  for (size_t i = 0; i < count; ++i) {
    for (size_t b = 0; b < width; ++b) out.push_back(raw[i * width + width - 1 - b]);  // little-endian host
  }
  return out;
}

Tensor parse(const std::vector<uint8_t>& bytes, const std::string& name = "mem") {
  return parse_idx(bytes.data(), bytes.size(), name);
}

}  // namespace

TEST_CASE("IDX files of every element type read back, plain and gzip", "[data][idx]") {
  std::string dir = data::testing::scratch_dir("idx_round_trip");

  std::vector<uint8_t> pixels;
  for (int i = 0; i < 2 * 3 * 4; ++i) pixels.push_back(static_cast<uint8_t>(i * 11));
  std::vector<uint8_t> file = data::testing::idx(0x08, {2, 3, 4}, pixels);
  data::testing::write_bytes(dir + "/plain", file);
  data::testing::write_bytes(dir + "/packed.bin", data::testing::gzip(file));  // detected by content, not name
  for (const char* name : {"/plain", "/packed.bin"}) {
    Tensor t = read_idx(dir + name);
    CHECK(t.dtype() == kUInt8);
    CHECK(t.sizes() == Shape{2, 3, 4});
    CHECK(t.to_vector<uint8_t>() == pixels);
  }

  std::vector<int8_t> i8 = {-128, -1, 0, 127};
  Tensor a = parse(data::testing::idx(0x09, {4}, std::vector<uint8_t>(i8.begin(), i8.end())));
  CHECK(a.dtype() == kInt32);
  CHECK(a.to_vector<int32_t>() == std::vector<int32_t>{-128, -1, 0, 127});

  std::vector<int16_t> i16 = {-32768, -2, 3, 32767};
  Tensor b = parse(data::testing::idx(0x0b, {2, 2}, be_bytes(i16.data(), 4, 2)));
  CHECK(b.dtype() == kInt32);
  CHECK(b.to_vector<int32_t>() == std::vector<int32_t>{-32768, -2, 3, 32767});

  std::vector<int32_t> i32 = {INT32_MIN, -70000, 70000, INT32_MAX};
  CHECK(parse(data::testing::idx(0x0c, {4}, be_bytes(i32.data(), 4, 4))).to_vector<int32_t>() == i32);

  std::vector<float> f32 = {-1.5f, 0.0f, 3.25e-20f, 1e30f};
  Tensor c = parse(data::testing::idx(0x0d, {1, 4}, be_bytes(f32.data(), 4, 4)));
  CHECK(c.dtype() == kFloat32);
  CHECK(c.to_vector<float>() == f32);

  std::vector<double> f64 = {-2.5, 1e-300, 0.1, 6.02e23};
  Tensor d = parse(data::testing::idx(0x0e, {4}, be_bytes(f64.data(), 4, 8)));
  CHECK(d.dtype() == kFloat64);
  CHECK(d.to_vector<double>() == f64);
}

TEST_CASE("IDX arrays with no elements or no dims", "[data][idx]") {
  Tensor empty = parse(data::testing::idx(0x08, {0, 28, 28}, {}));
  CHECK(empty.sizes() == Shape{0, 28, 28});
  Tensor scalar = parse(data::testing::idx(0x08, {}, {42}));
  CHECK(scalar.dim() == 0);
  CHECK(scalar.item<uint8_t>() == 42);
}

TEST_CASE("IDX errors name the file, the problem and the byte offset", "[data][idx]") {
  std::string dir = data::testing::scratch_dir("idx_errors");
  CHECK_THROWS_WITH(read_idx(dir + "/missing"),
                    Contains("cannot open '" + dir + "/missing'") && Contains("No such file"));

  std::vector<uint8_t> good = data::testing::idx(0x08, {2, 3}, std::vector<uint8_t>(6, 1));

  std::vector<uint8_t> magic = good;
  magic[0] = 0x1a;
  CHECK_THROWS_WITH(parse(magic, "m.idx"),
                    Contains("IDX file m.idx") && Contains("wrong magic number 0x1a000802 at byte offset 0"));
  CHECK_THROWS_WITH(parse({0, 0}, "short.idx"), Contains("short.idx") && Contains("too short: 2 bytes"));

  std::vector<uint8_t> type = good;
  type[2] = 0x07;
  CHECK_THROWS_WITH(parse(type, "t.idx"),
                    Contains("t.idx") && Contains("unknown element type code 0x07 at byte offset 2"));

  std::vector<uint8_t> header(good.begin(), good.begin() + 10);
  CHECK_THROWS_WITH(parse(header, "h.idx"),
                    Contains("h.idx") && Contains("truncated header: 2 dims (byte offset 3) need a 12-byte header") &&
                        Contains("has 10 bytes"));

  std::vector<uint8_t> data(good.begin(), good.end() - 2);
  CHECK_THROWS_WITH(parse(data, "d.idx"), Contains("d.idx") &&
                                              Contains("truncated data: the dims [2, 3] of uint8 need 6 bytes") &&
                                              Contains("only 4 bytes follow"));

  std::vector<uint8_t> extra = good;
  extra.push_back(9);
  CHECK_THROWS_WITH(parse(extra, "x.idx"),
                    Contains("x.idx") && Contains("1 unexpected bytes after the end of the data at byte offset 18"));

  std::vector<uint8_t> huge = data::testing::idx(0x0e, {0xffffffff, 0xffffffff, 0xffffffff}, {});
  CHECK_THROWS_WITH(parse(huge, "big.idx"), Contains("big.idx") && Contains("impossibly large"));

  // Problems inside a gzip file are reported at offsets of the decompressed data.
  data::testing::write_bytes(dir + "/d.gz", data::testing::gzip(data));
  CHECK_THROWS_WITH(read_idx(dir + "/d.gz"), Contains(dir + "/d.gz (decompressed)") && Contains("truncated data"));
  std::vector<uint8_t> cut = data::testing::gzip(good);
  cut.resize(cut.size() / 2);
  data::testing::write_bytes(dir + "/cut.gz", cut);
  CHECK_THROWS_WITH(read_idx(dir + "/cut.gz"), Contains(dir + "/cut.gz") && Contains("truncated gzip data"));
}
