// Replays a libFuzzer target (data/fuzz/<name>_fuzzer.cc, linked in by the BUILD rule) over its
// seed corpus and deterministic mutations of every seed: each truncation, each single-bit flip
// of the first bytes (the headers), and every byte of the header set to 0x00 and 0xff. The
// target aborts on anything but a clean parse or a brisk::Error, which fails this test; the
// libFuzzer runs of tools/fuzz.sh explore further, with sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

constexpr size_t kHeaderBytes = 64;

size_t run(const std::vector<uint8_t>& bytes) {
  // A heap copy of exactly `size` bytes, so an over-read is an over-read (and ASan sees it).
  std::vector<uint8_t> exact(bytes);
  exact.shrink_to_fit();
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  return 1;
}

size_t replay_with_mutations(const std::vector<uint8_t>& seed) {
  size_t inputs = run(seed);
  for (size_t length = 0; length < seed.size(); ++length) {
    inputs += run(std::vector<uint8_t>(seed.begin(), seed.begin() + static_cast<std::ptrdiff_t>(length)));
  }
  const size_t header = std::min(seed.size(), kHeaderBytes);
  for (size_t i = 0; i < header; ++i) {
    std::vector<uint8_t> mutated = seed;
    for (int bit = 0; bit < 8; ++bit) {
      mutated[i] = static_cast<uint8_t>(seed[i] ^ (1u << bit));
      inputs += run(mutated);
    }
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}}) {
      mutated[i] = value;
      inputs += run(mutated);
    }
  }
  return inputs;
}

}  // namespace

TEST_CASE("the fuzz target survives its seed corpus and mutations of it") {
  const std::filesystem::path corpus = std::filesystem::path("data/fuzz/corpus") / FUZZ_CORPUS;
  REQUIRE(std::filesystem::is_directory(corpus));
  size_t seeds = 0, inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<uint8_t> seed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO("seed " << entry.path());
    inputs += replay_with_mutations(seed);
    ++seeds;
  }
  INFO(inputs << " inputs from " << seeds << " seeds");
  CHECK(seeds >= 3);
  CHECK(inputs > seeds * 10);
}
