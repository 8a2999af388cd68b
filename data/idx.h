#pragma once
// The IDX format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/):
//
//   offset 0   two zero bytes
//   offset 2   the element type: 0x08 uint8, 0x09 int8, 0x0b int16, 0x0c int32, 0x0d float32,
//              0x0e float64
//   offset 3   the number of dims, n
//   offset 4   n sizes, each a big-endian uint32
//   then       the elements in row-major order, big-endian
//
// Files may be gzip-compressed; that is recognized by the gzip magic bytes, not by the name.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace brisk::data {

// The array stored in an IDX file held in memory (plain or gzip), as a CPU tensor of the
// file's sizes: uint8, int32 (int8 and int16 are widened, Brisk having neither), float32 or
// float64. `name` names the source in errors, which say what is wrong and at which byte
// offset (of the decompressed data, for gzip): wrong magic number, unknown type code,
// truncated header or data (bytes expected vs present), bytes after the data, gzip corruption.
Tensor parse_idx(const uint8_t* data, size_t size, const std::string& name);

// The array stored in the IDX file at `path` (plain or gzip); errors name the path.
Tensor read_idx(const std::string& path);

}  // namespace brisk::data
