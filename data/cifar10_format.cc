#include "data/cifar10_format.h"

#include <vector>

#include "data/gzip.h"
#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kPlane = kSide * kSide;

LabeledImages parse_plain(const uint8_t* data, size_t size, const std::string& name) {
  const auto record = static_cast<size_t>(kCifar10RecordBytes);
  BRISK_CHECK(size > 0, "CIFAR-10 file {}: empty, expected records of {} bytes", name, record);
  BRISK_CHECK(size % record == 0,
              "CIFAR-10 file {}: truncated data: {} bytes are {} records of {} bytes and {} bytes more; expected {} "
              "bytes",
              name, size, size / record, record, size % record, (size / record + 1) * record);
  auto n = static_cast<int64_t>(size / record);
  Tensor images = native::empty({n, kSide, kSide, 3}, kUInt8);
  Tensor labels = native::empty({n}, kInt64);
  uint8_t* pixels = images.data_ptr<uint8_t>();
  int64_t* targets = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* rec = data + i * record;
    BRISK_CHECK(rec[0] < kCifar10Classes,
                "CIFAR-10 file {}: label {} of record {} at byte offset {} is out of range [0, {}]", name, rec[0], i,
                i * kCifar10RecordBytes, kCifar10Classes - 1);
    targets[i] = rec[0];
    // Planes (CHW) to channels last (HWC).
    const uint8_t* red = rec + 1;
    uint8_t* out = pixels + i * 3 * kPlane;
    for (int64_t p = 0; p < kPlane; ++p) {
      out[3 * p] = red[p];
      out[3 * p + 1] = red[kPlane + p];
      out[3 * p + 2] = red[2 * kPlane + p];
    }
  }
  return {images, labels};
}

}  // namespace

LabeledImages parse_cifar10(const uint8_t* data, size_t size, const std::string& name) {
  if (is_gzip(data, size)) {
    std::vector<uint8_t> plain = gunzip(data, size, name);
    return parse_plain(plain.data(), plain.size(), name + " (decompressed)");
  }
  return parse_plain(data, size, name);
}

}  // namespace brisk::data
