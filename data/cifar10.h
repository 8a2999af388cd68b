#pragma once
// CIFAR-10, binary version (https://www.cs.toronto.edu/~kriz/cifar.html): each file is a
// sequence of 3073-byte records, a label byte (0-9) followed by a 32x32 colour image as 1024
// red, 1024 green and 1024 blue bytes, each plane row by row.
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/dataset.h"

namespace brisk::data {

// Images and labels of a CIFAR-10 file.
struct LabeledImages {
  Tensor images;  // uint8 [N, 32, 32, 3], channels last (HWC), like torchvision's CIFAR10.data
  Tensor labels;  // int64 [N]
};

// Parses CIFAR-10 records held in memory (plain, or gzip recognized by its magic bytes: no
// record starts with 0x1f, an invalid label). `name` names the source in errors: empty
// data, a size that is not a whole number of records (expected vs actual bytes), a label
// out of range (with its byte offset).
LabeledImages parse_cifar10(const uint8_t* data, size_t size, const std::string& name);

class CIFAR10 : public Dataset {
 public:
  static constexpr int64_t kRecordBytes = 3073;
  static constexpr int64_t kNumClasses = 10;

  // Reads data_batch_1.bin ... data_batch_5.bin (train) or test_batch.bin (test) from `root`,
  // or from `root`/cifar-10-batches-bin, where the official archive unpacks them.
  explicit CIFAR10(const std::string& root, bool train = true);

  int64_t size() const override;
  // data: uint8 [32, 32, 3] (HWC, a view of images(); ToTensor makes it float [3, 32, 32]);
  // target: int64 0-dim.
  Example get(int64_t index) const override;

  const Tensor& images() const { return images_; }
  const Tensor& labels() const { return labels_; }

 private:
  Tensor images_;
  Tensor labels_;
};

}  // namespace brisk::data
