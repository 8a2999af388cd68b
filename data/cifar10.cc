#include "data/cifar10.h"

#include <vector>

#include "data/file_bytes.h"
#include "tensor/native/ops.h"

namespace brisk::data {
namespace {

// `root`/`file`, or `root`/cifar-10-batches-bin/`file`.
std::string find_file(const std::string& root, const std::string& file) {
  std::string direct = root + "/" + file;
  if (file_exists(direct)) return direct;
  std::string nested = root + "/cifar-10-batches-bin/" + file;
  BRISK_CHECK(file_exists(nested), "CIFAR10: missing file: neither {} nor {} exists", direct, nested);
  return nested;
}

}  // namespace

CIFAR10::CIFAR10(const std::string& root, bool train) {
  std::vector<Tensor> images;
  std::vector<Tensor> labels;
  for (const std::string& name : file_names(train)) {
    const std::string path = find_file(root, name);
    std::vector<uint8_t> bytes = read_file_bytes(path);
    LabeledImages part = parse_cifar10(bytes.data(), bytes.size(), path);
    images.push_back(part.images);
    labels.push_back(part.labels);
  }
  images_ = images.size() == 1 ? images[0] : native::cat(images, 0);
  labels_ = labels.size() == 1 ? labels[0] : native::cat(labels, 0);
}

std::vector<std::string> CIFAR10::file_names(bool train) {
  if (!train) return {"test_batch.bin"};
  std::vector<std::string> names;
  for (int i = 1; i <= 5; ++i) names.push_back("data_batch_" + std::to_string(i) + ".bin");
  return names;
}

int64_t CIFAR10::size() const { return images_.size(0); }

Example<> CIFAR10::get(int64_t index) const {
  check_index("CIFAR10", index, size());
  return {images_.select(0, index), labels_.select(0, index)};
}

}  // namespace brisk::data
