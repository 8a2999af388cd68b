// Checksums in safetensors files (checkpoint/checksums.h): what each kind of corruption is
// reported as, and that files without checksums still load.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/checksums.h"
#include "checkpoint/safetensors.h"
#include "tensor/error.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"

using namespace brisk;
using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using brisk::testing::dtype_samples;
using brisk::testing::same_bits;
using Catch::Matchers::Contains;

namespace {

// Replaces the one occurrence of `from` in the file by `to`, of the same length.
void replace_in_file(const std::string& path, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  std::vector<uint8_t> bytes = read_bytes(path);
  std::string text(bytes.begin(), bytes.end());
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  text.replace(at, to.size(), to);
  write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

nn::StateDict two_tensors() {
  nn::StateDict tensors;
  tensors.insert("fc.weight", arange(6, kFloat32).reshape({2, 3}));
  tensors.insert("fc.bias", tensor<float>({0.5f, -0.5f}, {2}));
  return tensors;
}

}  // namespace

TEST_CASE("checksums: XXH3-64, as the xxHash reference computes it") {
  REQUIRE(checksum("", 0) == 0x2d06800538d394c2ULL);  // XXH3_64bits of no bytes (xxHash's test vector)
  const std::string text = "brisk";
  REQUIRE(checksum(text.data(), text.size()) != checksum(text.data(), text.size() - 1));
}

TEST_CASE("checksums: a file with them round-trips every dtype, and they are not part of the metadata read") {
  std::string path = scratch_dir("checksums_roundtrip") + "/t.safetensors";
  nn::StateDict tensors = dtype_samples();
  save_safetensors(path, tensors, {{"format", "pt"}}, Checksums::kWrite);
  Safetensors loaded = load_safetensors(path);
  REQUIRE(loaded.checksums_verified);
  REQUIRE(loaded.metadata == Metadata{{"format", "pt"}});
  for (const auto& [name, t] : tensors) REQUIRE(same_bits(loaded.tensors[name], t));

  std::vector<uint8_t> bytes = read_bytes(path);
  std::string text(bytes.begin(), bytes.end());
  REQUIRE(text.find("\"brisk.checksums\":\"{\\\"algorithm\\\":\\\"xxh3-64\\\"") != std::string::npos);
}

TEST_CASE("checksums: files without them (plain weights, other writers) load unverified") {
  std::string path = scratch_dir("checksums_plain") + "/t.safetensors";
  save_safetensors(path, two_tensors(), {{"format", "pt"}});
  std::vector<uint8_t> bytes = read_bytes(path);
  REQUIRE(std::string(bytes.begin(), bytes.end()).find("brisk.checksums") == std::string::npos);
  REQUIRE_FALSE(load_safetensors(path).checksums_verified);
  REQUIRE_FALSE(load_safetensors("tests/fixtures/torch_dtypes.safetensors").checksums_verified);
  REQUIRE_THROWS_WITH(save_safetensors(path, two_tensors(), {{kChecksumsKey, "mine"}}), Contains("is reserved"));
}

TEST_CASE("checksums: a corruption is named: the tensor and its bytes, the header entry, the metadata entry") {
  std::string dir = scratch_dir("checksums_named");
  std::string path = dir + "/t.safetensors";
  auto fresh = [&] { save_safetensors(path, two_tensors(), {{"format", "pt"}, {"epochs", "12"}}, Checksums::kWrite); };

  SECTION("a flipped bit in a tensor's data") {
    fresh();
    std::vector<uint8_t> bytes = read_bytes(path);
    bytes[bytes.size() - 3] ^= 0x10;  // in fc.bias, the last tensor (8 bytes)
    write_bytes(path, bytes);
    const std::string begin = std::to_string(bytes.size() - 8), end = std::to_string(bytes.size());
    REQUIRE_THROWS_WITH(load_safetensors(path),
                        Contains(path) && Contains("tensor \"fc.bias\" (file bytes " + begin + " to " + end +
                                                   ") does not match its "
                                                   "checksum"));
  }
  SECTION("a tensor's dtype or shape changed, its size kept") {
    fresh();
    replace_in_file(path, "\"dtype\":\"F32\",\"shape\":[2,3]", "\"dtype\":\"I32\",\"shape\":[3,2]");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains(path) &&
                                                    Contains("the header entry of tensor \"fc.weight\"") &&
                                                    Contains("does not match its checksum"));
  }
  SECTION("a tensor renamed") {
    fresh();
    replace_in_file(path, "\"fc.bias\":{", "\"fc.bian\":{");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains("the header has tensor \"fc.bian\", for which"));
  }
  SECTION("a metadata value or key changed") {
    fresh();
    replace_in_file(path, "\"epochs\":\"12\"", "\"epochs\":\"13\"");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains("the value of metadata entry \"epochs\" (13) does not match"));
    fresh();
    replace_in_file(path, "\"epochs\":\"12\"", "\"epocks\":\"12\"");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains("the header has metadata entry \"epocks\", for which"));
  }
  SECTION("the checksums themselves changed") {
    fresh();
    replace_in_file(path, "xxh3-64", "xxh3-65");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains("names the checksum algorithm \"xxh3-65\""));
    fresh();
    replace_in_file(path, "\\\"entries\\\"", "\\\"entriet\\\"");
    REQUIRE_THROWS_WITH(load_safetensors(path), Contains("metadata \"brisk.checksums\" is corrupt"));
  }
}
