#include "tensorboard/crc32c.h"

#include <array>

namespace brisk::tensorboard {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78;  // Castagnoli's, bit-reversed
constexpr uint32_t kMaskDelta = 0xa282ead8;

// The CRC of each byte value, for a byte-at-a-time loop: a few megabytes a second are far
// more than a run's scalars need.
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (crc & 1 ? kPolynomial : 0);
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint32_t crc = 0xffffffff;
  for (size_t i = 0; i < size; ++i) crc = (crc >> 8) ^ kTable[(crc ^ bytes[i]) & 0xff];
  return ~crc;
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

}  // namespace brisk::tensorboard
