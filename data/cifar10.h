#pragma once
// The CIFAR-10 dataset: 50000 training and 10000 test 32x32 colour images in 10 classes, read
// from the binary version's files (data/cifar10_format.h).
#include <string>
#include <vector>

#include "data/cifar10_format.h"
#include "data/dataset.h"

namespace brisk::data {

class CIFAR10 : public Dataset {
 public:
  static constexpr int64_t kNumClasses = kCifar10Classes;

  // Reads data_batch_1.bin ... data_batch_5.bin (train) or test_batch.bin (test) from `root`,
  // or from `root`/cifar-10-batches-bin, where the official archive unpacks them. Raises
  // brisk::Error naming the file that is missing or wrong (see parse_cifar10).
  explicit CIFAR10(const std::string& root, bool train = true);

  // The files of a set, as the official archive names them: data_batch_1.bin ...
  // data_batch_5.bin (train) or test_batch.bin (test).
  static std::vector<std::string> file_names(bool train);

  int64_t size() const override;
  // data: uint8 [32, 32, 3] (HWC, a view of images(); ToTensor makes it float [3, 32, 32]);
  // target: int64 0-dim.
  Example<> get(int64_t index) const override;

  // uint8 [N, 32, 32, 3].
  const Tensor& images() const { return images_; }
  // int64 [N].
  const Tensor& labels() const { return labels_; }

 private:
  Tensor images_;
  Tensor labels_;
};

}  // namespace brisk::data
