#pragma once
// Files for the checkpoint tests: the shared scratch-file helpers (tests/scratch_files.h) and
// hand-made safetensors files.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/scratch_files.h"

namespace brisk::checkpoint::testing {

using brisk::testing::list_dir;
using brisk::testing::read_bytes;
using brisk::testing::scratch_dir;
using brisk::testing::write_bytes;

// A safetensors file made by hand: the 8-byte little-endian length of `header`, `header`,
// then `data_bytes` bytes of `fill`.
inline std::vector<uint8_t> safetensors_bytes(const std::string& header, size_t data_bytes, uint8_t fill = 0) {
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(uint64_t{header.size()} >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data_bytes, fill);
  return out;
}

}  // namespace brisk::checkpoint::testing
