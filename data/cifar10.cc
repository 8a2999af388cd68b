#include "data/cifar10.h"

#include <vector>

#include "data/file_bytes.h"
#include "data/gzip.h"
#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kPlane = kSide * kSide;

LabeledImages parse_plain(const uint8_t* data, size_t size, const std::string& name) {
  const auto record = static_cast<size_t>(CIFAR10::kRecordBytes);
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
    BRISK_CHECK(rec[0] < CIFAR10::kNumClasses, "CIFAR-10 file {}: label {} of record {} at byte offset {} is out of range [0, {}]",
                name, rec[0], i, i * CIFAR10::kRecordBytes, CIFAR10::kNumClasses - 1);
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

// `root`/`file`, or `root`/cifar-10-batches-bin/`file`.
std::string find_file(const std::string& root, const std::string& file) {
  std::string direct = root + "/" + file;
  if (file_exists(direct)) return direct;
  std::string nested = root + "/cifar-10-batches-bin/" + file;
  BRISK_CHECK(file_exists(nested), "CIFAR10: missing file: neither {} nor {} exists", direct, nested);
  return nested;
}

}  // namespace

LabeledImages parse_cifar10(const uint8_t* data, size_t size, const std::string& name) {
  if (is_gzip(data, size)) {
    std::vector<uint8_t> plain = gunzip(data, size, name);
    return parse_plain(plain.data(), plain.size(), name + " (decompressed)");
  }
  return parse_plain(data, size, name);
}

CIFAR10::CIFAR10(const std::string& root, bool train) {
  std::vector<std::string> files;
  if (train) {
    for (int i = 1; i <= 5; ++i) files.push_back(find_file(root, "data_batch_" + std::to_string(i) + ".bin"));
  } else {
    files.push_back(find_file(root, "test_batch.bin"));
  }
  std::vector<Tensor> images;
  std::vector<Tensor> labels;
  for (const std::string& path : files) {
    std::vector<uint8_t> bytes = read_file_bytes(path);
    LabeledImages part = parse_cifar10(bytes.data(), bytes.size(), path);
    images.push_back(part.images);
    labels.push_back(part.labels);
  }
  images_ = images.size() == 1 ? images[0] : native::cat(images, 0);
  labels_ = labels.size() == 1 ? labels[0] : native::cat(labels, 0);
}

int64_t CIFAR10::size() const { return images_.size(0); }

Example CIFAR10::get(int64_t index) const {
  check_index("CIFAR10", index, size());
  return {images_.select(0, index), labels_.select(0, index)};
}

}  // namespace brisk::data
