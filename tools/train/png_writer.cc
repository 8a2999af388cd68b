#include "tools/train/png_writer.h"

#include <zlib.h>

#include "tensor/error.h"

namespace brisk::train {
namespace {

void append_u32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

// A chunk: its data's length, type, data, and the CRC-32 of type and data.
void append_chunk(std::string& out, const char type[4], const std::string& data) {
  append_u32(out, static_cast<uint32_t>(data.size()));
  const size_t type_at = out.size();
  out.append(type, 4);
  out += data;
  const auto* checked = reinterpret_cast<const Bytef*>(out.data() + type_at);
  append_u32(out, static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), checked, static_cast<uInt>(4 + data.size()))));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb) {
  BRISK_CHECK(width > 0 && height > 0, "encode_png: the image is {}x{}; both must be positive", width, height);
  const size_t row_bytes = 3 * static_cast<size_t>(width);
  BRISK_CHECK(rgb.size() == row_bytes * height, "encode_png: {} bytes for a {}x{} RGB image, which needs {}",
              rgb.size(), width, height, row_bytes * height);

  std::string header;  // IHDR
  append_u32(header, static_cast<uint32_t>(width));
  append_u32(header, static_cast<uint32_t>(height));
  header += std::string{8, 2, 0, 0, 0};  // bit depth 8, color type 2 (RGB), deflate, filter 0, no interlace

  std::vector<Bytef> raw;  // each row: its filter byte (0), then its pixels
  raw.reserve((row_bytes + 1) * height);
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb.begin() + y * row_bytes, rgb.begin() + (y + 1) * row_bytes);
  }
  uLongf deflated_size = compressBound(static_cast<uLong>(raw.size()));
  std::string deflated(deflated_size, '\0');
  const int status = compress2(reinterpret_cast<Bytef*>(deflated.data()), &deflated_size, raw.data(),
                               static_cast<uLong>(raw.size()), Z_BEST_COMPRESSION);
  BRISK_CHECK(status == Z_OK, "encode_png: zlib's compress2 failed ({})", status);
  deflated.resize(deflated_size);

  std::string png("\x89PNG\r\n\x1a\n", 8);
  append_chunk(png, "IHDR", header);
  append_chunk(png, "IDAT", deflated);
  append_chunk(png, "IEND", "");
  return png;
}

}  // namespace brisk::train
