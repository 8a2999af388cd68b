// Reading and writing safetensors files: round trips of every dtype, a file written by
// PyTorch's `safetensors` package (tests/fixtures/torch_dtypes.safetensors, from
// tools/fixtures/gen_safetensors_fixtures.py), and corrupt or truncated files.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/safetensors.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"

using namespace brisk;
using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using brisk::testing::dtype_samples;
using brisk::testing::same_bits;
using Catch::Matchers::Contains;

namespace {

void require_same(const nn::StateDict& got, const nn::StateDict& want) {
  REQUIRE(got.keys() == want.keys());
  for (const auto& [name, tensor] : want) {
    INFO(name << ": got " << got[name].describe() << ", want " << tensor.describe());
    REQUIRE(same_bits(got[name], tensor));
  }
}

// The header a one-tensor file "w" of 2 float32 would have, with its fields replaced.
std::string header_of(const std::string& dtype = "\"F32\"", const std::string& shape = "[2]",
                      const std::string& offsets = "[0,8]") {
  return "{\"w\":{\"dtype\":" + dtype + ",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}}";
}

}  // namespace

TEST_CASE("safetensors: every dtype round-trips bitwise, in order, with the metadata") {
  std::string path = scratch_dir("roundtrip") + "/t.safetensors";
  nn::StateDict tensors = dtype_samples();
  Metadata metadata = {{"format", "pt"}, {"note", "héllo \"quoted\""}};
  save_safetensors(path, tensors, metadata);
  Safetensors loaded = load_safetensors(path);
  require_same(loaded.tensors, tensors);
  REQUIRE(loaded.metadata == metadata);
  for (const auto& [name, tensor] : loaded.tensors) REQUIRE(tensor.is_cpu());
}

TEST_CASE("safetensors: the layout is the format's: length, padded JSON, contiguous data") {
  std::string path = scratch_dir("layout") + "/t.safetensors";
  nn::StateDict tensors;
  tensors.insert("b", tensor<float>({1.0f, 2.0f}, {2}));
  tensors.insert("a", tensor<int64_t>({7}, {1}));
  save_safetensors(path, tensors);
  std::vector<uint8_t> bytes = read_bytes(path);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[i];
  REQUIRE((8 + length) % 8 == 0);  // the data starts 8-byte aligned
  std::string header(bytes.begin() + 8, bytes.begin() + 8 + length);
  REQUIRE(header.rfind("{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                       "\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[8,16]}}",
                       0) == 0);
  REQUIRE(header.find_first_not_of(' ', header.find_last_of('}') + 1) == std::string::npos);
  REQUIRE(bytes.size() == 8 + length + 16);
  REQUIRE(bytes[8 + length + 8] == 7);  // little-endian int64
}

TEST_CASE("safetensors: views and non-contiguous tensors are written as their values") {
  std::string path = scratch_dir("views") + "/t.safetensors";
  Tensor base = arange(12, kFloat32).reshape({3, 4});
  nn::StateDict tensors;
  tensors.insert("transposed", base.t());
  tensors.insert("column", base.select(1, 2));
  Safetensors loaded = load_safetensors((save_safetensors(path, tensors), path));
  REQUIRE(loaded.tensors["transposed"].sizes() == Shape{4, 3});
  REQUIRE(equal(loaded.tensors["transposed"], base.t()));
  REQUIRE(loaded.tensors["column"].to_vector<float>() == std::vector<float>{2, 6, 10});
}

TEST_CASE("safetensors: a file written by PyTorch's safetensors package loads with its values") {
  Safetensors loaded = load_safetensors("tests/fixtures/torch_dtypes.safetensors");
  nn::StateDict want = dtype_samples();
  // PyTorch orders the data by alignment, then name; the reader keeps the file's order.
  REQUIRE(loaded.tensors.size() == want.size());
  for (const auto& [name, tensor] : want) {
    REQUIRE(loaded.tensors.contains(name));
    INFO(name << ": got " << loaded.tensors[name].str() << ", want " << tensor.str());
    REQUIRE(same_bits(loaded.tensors[name], tensor));
  }
  REQUIRE(loaded.metadata == Metadata{{"format", "pt"}, {"source", "safetensors fixture"}});
}

TEST_CASE("safetensors: an empty file of tensors and a header without metadata are valid") {
  std::string dir = scratch_dir("empty");
  save_safetensors(dir + "/none.safetensors", {});
  Safetensors none = load_safetensors(dir + "/none.safetensors");
  REQUIRE(none.tensors.empty());
  REQUIRE(none.metadata.empty());
  write_bytes(dir + "/null_metadata.safetensors", safetensors_bytes("{\"__metadata__\":null}  ", 0));
  REQUIRE(load_safetensors(dir + "/null_metadata.safetensors").tensors.empty());
}

TEST_CASE("safetensors: corrupt headers are errors naming the file, the tensor and the byte offset") {
  std::string dir = scratch_dir("corrupt");
  std::string path = dir + "/bad.safetensors";
  auto load_header = [&](const std::string& header, size_t data_bytes) {
    write_bytes(path, safetensors_bytes(header, data_bytes));
    return load_safetensors(path);
  };
  REQUIRE(load_header(header_of(), 8).tensors["w"].sizes() == Shape{2});

  SECTION("not JSON") {
    REQUIRE_THROWS_WITH(load_header("{\"w\":{\"dtype\":\"F32\",,}}", 0),
                        Contains(path) && Contains("not valid JSON at byte 28"));
  }
  SECTION("not an object") { REQUIRE_THROWS_WITH(load_header("[1, 2]", 0), Contains("should be a JSON object")); }
  SECTION("unknown dtype") {
    REQUIRE_THROWS_WITH(load_header(header_of("\"F31\""), 8),
                        Contains("tensor \"w\" (header byte 9)") && Contains("unsupported dtype \"F31\""));
  }
  SECTION("missing and unknown fields") {
    REQUIRE_THROWS_WITH(load_header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8),
                        Contains("missing field \"data_offsets\""));
    REQUIRE_THROWS_WITH(load_header("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8),
                        Contains("unknown field \"x\""));
  }
  SECTION("bad shapes") {
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[-2]"), 8), Contains("non-negative integers"));
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[2.0]"), 8), Contains("non-negative integers"));
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[4294967296, 4294967296]"), 8), Contains("too large"));
  }
  SECTION("offsets that do not match the shape") {
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[3]"), 8),
                        Contains("\"data_offsets\" [0,8] hold 8 bytes, but F32 [3] needs 12"));
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[2]", "[8,0]"), 8), Contains("end before they begin"));
    REQUIRE_THROWS_WITH(load_header(header_of("\"F32\"", "[2]", "[0]"), 8), Contains("[begin, end]"));
  }
  SECTION("gaps, overlaps and bytes no tensor claims") {
    std::string two = "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                      "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[OFFSETS]}}";
    auto with = [&](const std::string& offsets) { return std::string(two).replace(two.find("OFFSETS"), 7, offsets); };
    size_t data_start = 8 + with("5,9").size();
    REQUIRE_THROWS_WITH(load_header(with("5,9"), 9),
                        Contains("tensor \"b\" starts at data byte 5 (file byte " + std::to_string(data_start + 5)) &&
                            Contains("leave a gap"));
    REQUIRE_THROWS_WITH(load_header(with("2,6"), 6), Contains("overlap"));
    REQUIRE_THROWS_WITH(load_header(with("4,8"), 10),
                        Contains("the tensors end at file byte " + std::to_string(data_start + 8)) &&
                            Contains("2 bytes that no tensor claims"));
  }
  SECTION("a name twice") {
    REQUIRE_THROWS_WITH(load_header("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                                    "\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
                                    2),
                        Contains("\"w\" appears twice"));
  }
  SECTION("metadata that is not strings") {
    REQUIRE_THROWS_WITH(load_header("{\"__metadata__\":{\"epoch\":3}}", 0),
                        Contains("the value of \"epoch\" should be a string"));
  }
  SECTION("a bool that is neither 0 nor 1") {
    std::vector<uint8_t> bytes =
        safetensors_bytes("{\"m\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}", 3, 1);
    bytes.back() = 2;
    write_bytes(path, bytes);
    REQUIRE_THROWS_WITH(load_safetensors(path),
                        Contains("has byte 2 at file byte " + std::to_string(bytes.size() - 1)));
  }
}

TEST_CASE("safetensors: truncated files are errors naming where the file ends") {
  std::string dir = scratch_dir("truncated");
  std::string path = dir + "/t.safetensors";
  save_safetensors(path, dtype_samples());
  std::vector<uint8_t> whole = read_bytes(path);

  write_bytes(path, std::vector<uint8_t>(whole.begin(), whole.begin() + 5));
  REQUIRE_THROWS_WITH(load_safetensors(path), Contains("the file is 5 bytes, too short for the 8-byte header length"));
  write_bytes(path, std::vector<uint8_t>(whole.begin(), whole.begin() + 100));
  REQUIRE_THROWS_WITH(load_safetensors(path), Contains("but the file ends at byte 100 (truncated?)"));
  write_bytes(path, std::vector<uint8_t>(whole.begin(), whole.end() - 1));
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("ends at file byte " + std::to_string(whole.size())) &&
                          Contains("the file ends at byte " + std::to_string(whole.size() - 1)));
  // Every shorter length is an error, never a crash or a short tensor.
  for (size_t size = 0; size < whole.size(); ++size) {
    write_bytes(path, std::vector<uint8_t>(whole.begin(), whole.begin() + size));
    REQUIRE_THROWS_AS(load_safetensors(path), Error);
  }
}

TEST_CASE("safetensors: a header length past the limit or a missing file are errors") {
  std::string dir = scratch_dir("length");
  std::vector<uint8_t> bytes = {0, 0, 0, 0, 0, 0, 0, 1};  // 2^56
  write_bytes(dir + "/huge.safetensors", bytes);
  REQUIRE_THROWS_WITH(load_safetensors(dir + "/huge.safetensors"),
                      Contains("header length at byte 0") && Contains("limit"));
  REQUIRE_THROWS_WITH(load_safetensors(dir + "/absent.safetensors"), Contains("cannot open"));
}

TEST_CASE("safetensors: writing checks names and tensors") {
  std::string path = scratch_dir("write_checks") + "/t.safetensors";
  nn::StateDict undefined;
  undefined.insert("w", Tensor());
  REQUIRE_THROWS_WITH(save_safetensors(path, undefined), Contains("tensor \"w\" is undefined"));
  nn::StateDict reserved;
  reserved.insert("__metadata__", zeros({1}));
  REQUIRE_THROWS_WITH(save_safetensors(path, reserved), Contains("invalid tensor name"));
}
