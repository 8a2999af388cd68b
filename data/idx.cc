#include "data/idx.h"

#include <type_traits>
#include <vector>

#include "data/file_bytes.h"
#include "data/gzip.h"
#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

// A big-endian unsigned integer of `bytes` bytes.
uint64_t load_be(const uint8_t* p, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value = value << 8 | p[i];
  return value;
}

// Converts `n` big-endian elements of type Wire into the tensor's memory of type Out: the
// signed integers widen to int32; the floats are copied as their bits.
template <typename Wire, typename Out>
void decode(const uint8_t* src, int64_t n, void* dst) {
  auto* out = static_cast<Out*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    const auto bits = static_cast<std::make_unsigned_t<Wire>>(load_be(src + i * sizeof(Wire), sizeof(Wire)));
    out[i] = static_cast<Wire>(bits);
  }
}

struct IdxType {
  uint8_t code;
  const char* name;
  size_t bytes;
  DType dtype;
  void (*decode)(const uint8_t* src, int64_t n, void* dst);
};

constexpr IdxType kTypes[] = {
    {0x08, "uint8", 1, kUInt8, decode<uint8_t, uint8_t>},
    {0x09, "int8", 1, kInt32, decode<int8_t, int32_t>},
    {0x0b, "int16", 2, kInt32, decode<int16_t, int32_t>},
    {0x0c, "int32", 4, kInt32, decode<int32_t, int32_t>},
    {0x0d, "float32", 4, kFloat32, decode<uint32_t, uint32_t>},
    {0x0e, "float64", 8, kFloat64, decode<uint64_t, uint64_t>},
};

// Beyond this many elements (or bytes) an array cannot be real, and its strides would overflow.
constexpr uint64_t kMaxCount = uint64_t{1} << 62;

Tensor parse_plain(const uint8_t* data, size_t size, const std::string& name) {
  BRISK_CHECK(size >= 4, "IDX file {}: too short: {} bytes, fewer than the 4 of the magic number", name, size);
  BRISK_CHECK(data[0] == 0 && data[1] == 0,
              "IDX file {}: wrong magic number 0x{:08x} at byte offset 0: an IDX file starts with two zero "
              "bytes, the type code and the number of dims (MNIST images: 0x00000803, labels: 0x00000801)",
              name, load_be(data, 4));
  const IdxType* type = nullptr;
  for (const IdxType& t : kTypes) {
    if (t.code == data[2]) type = &t;
  }
  BRISK_CHECK(type != nullptr,
              "IDX file {}: unknown element type code 0x{:02x} at byte offset 2 (known: 0x08 uint8, 0x09 int8, "
              "0x0b int16, 0x0c int32, 0x0d float32, 0x0e float64)",
              name, data[2]);

  size_t ndims = data[3];
  size_t header = 4 + 4 * ndims;
  BRISK_CHECK(size >= header,
              "IDX file {}: truncated header: {} dims (byte offset 3) need a {}-byte header, but the file has {} "
              "bytes",
              name, ndims, header, size);
  Shape shape(ndims);
  uint64_t numel = 1;
  uint64_t nonzero_product = 1;  // bounds every stride, even of an empty array
  for (size_t d = 0; d < ndims; ++d) {
    const auto extent = static_cast<uint32_t>(load_be(data + 4 + 4 * d, 4));
    shape[d] = extent;
    numel *= extent;
    if (extent != 0) {
      BRISK_CHECK(nonzero_product <= kMaxCount / extent, "IDX file {}: the dims {} describe an impossibly large array",
                  name, shape);
      nonzero_product *= extent;
    }
  }

  uint64_t available = size - header;
  // numel <= nonzero_product <= 2^62 and an element has at most 8 bytes: no overflow.
  uint64_t expected = numel * type->bytes;
  BRISK_CHECK(available >= expected,
              "IDX file {}: truncated data: the dims {} of {} need {} bytes after the {}-byte header, but only {} "
              "bytes follow (the file has {} bytes)",
              name, shape, type->name, expected, header, available, size);
  BRISK_CHECK(available == expected,
              "IDX file {}: {} unexpected bytes after the end of the data at byte offset {} (dims {} of {})", name,
              available - expected, header + expected, shape, type->name);

  Tensor out = native::empty(shape, type->dtype);
  if (numel > 0) type->decode(data + header, static_cast<int64_t>(numel), out.raw_data());
  return out;
}

}  // namespace

Tensor parse_idx(const uint8_t* data, size_t size, const std::string& name) {
  if (is_gzip(data, size)) {
    std::vector<uint8_t> plain = gunzip(data, size, name);
    return parse_plain(plain.data(), plain.size(), name + " (decompressed)");
  }
  return parse_plain(data, size, name);
}

Tensor read_idx(const std::string& path) {
  std::vector<uint8_t> bytes = read_file_bytes(path);
  return parse_idx(bytes.data(), bytes.size(), path);
}

}  // namespace brisk::data
