#pragma once
// MNIST and Fashion-MNIST (the same format: IDX files of 28x28 uint8 images and uint8 labels).
#include <string>

#include "data/dataset.h"
#include "data/map_dataset.h"

namespace brisk::data {

class MNIST : public Dataset {
 public:
  static constexpr int64_t kNumClasses = 10;

  // Reads `root`/train-images-idx3-ubyte and train-labels-idx1-ubyte (train) or
  // t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (test), each also found under its
  // .gz name; gzip is recognized by content, not name. Raises brisk::Error naming the file
  // and the problem: missing, not IDX (see data/idx.h), images not uint8 [N, H, W], labels not
  // uint8 [N] for the same N, or a label outside [0, 9].
  explicit MNIST(const std::string& root, bool train = true);
  // From arrays already parsed (read_idx, on the CPU); `images_name` and `labels_name` name them in errors.
  MNIST(Tensor images, Tensor labels, const std::string& images_name, const std::string& labels_name);

  int64_t size() const override;
  // data: uint8 [H, W], a view of images(); target: int64 0-dim, a view of labels().
  Example<> get(int64_t index) const override;

  // uint8 [N, H, W], the pixels as stored, in one block of memory.
  const Tensor& images() const { return images_; }
  // int64 [N].
  const Tensor& labels() const { return labels_; }

 private:
  void init(Tensor images, Tensor labels, const std::string& images_name, const std::string& labels_name);

  Tensor images_;
  Tensor labels_;
};

namespace datasets {

// libtorch's MNIST (torch::data::datasets::MNIST): the same files, with examples as libtorch
// makes them: data float32 [1, 28, 28] in [0, 1] (the bytes / 255, data::ToTensor), target
// int64 0-dim.
class MNIST : public MapDataset {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  bool is_train() const { return train_; }
  // float32 [N, 1, 28, 28] in [0, 1], converted from the stored bytes on each call.
  Tensor images() const;
  // int64 [N].
  const Tensor& targets() const { return source_->labels(); }

 private:
  MNIST(std::shared_ptr<const data::MNIST> source, bool train);

  std::shared_ptr<const data::MNIST> source_;
  bool train_;
};

}  // namespace datasets
}  // namespace brisk::data
