#pragma once
// A minimal PNG encoder: 8-bit RGB, no interlacing, every row with filter 0 (none), the image
// data deflated by zlib in one IDAT chunk. Enough for plots of a few hundred kilobytes raw;
// the file is smaller than an uncompressed image because plots are mostly flat colors.
#include <cstdint>
#include <string>
#include <vector>

namespace brisk::train {

// The PNG file's bytes for `rgb`: height rows of width (r, g, b) triples, top row first.
// Raises brisk::Error when rgb.size() is not width * height * 3 or the size is not positive.
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace brisk::train
