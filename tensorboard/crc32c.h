#pragma once
// CRC-32C (Castagnoli), the checksum of TensorBoard's records, and the masked form the
// records store (TFRecord's: a checksum of data that holds checksums would otherwise be weak).
#include <cstddef>
#include <cstdint>

namespace brisk::tensorboard {

uint32_t crc32c(const void* data, size_t size);

// ((crc >> 15) | (crc << 17)) + 0xa282ead8 of crc32c(data, size).
uint32_t masked_crc32c(const void* data, size_t size);

}  // namespace brisk::tensorboard
