#pragma once
// A strict reader of the PNGs train writes, for tests: it REQUIREs the signature, the
// IHDR of an 8-bit RGB image, a correct CRC-32 on every chunk, IDAT data that zlib inflates
// to exactly height * (1 + 3 * width) bytes, and filter byte 0 on every row.
#include <cstdint>
#include <string>
#include <vector>

namespace brisk::train::testing {

struct DecodedPng {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;  // height rows of width (r, g, b), filter bytes removed
};

DecodedPng decode_png(const std::string& bytes);

// The PNG file's bytes (REQUIREs that it can be read).
std::string read_file(const std::string& path);

}  // namespace brisk::train::testing
