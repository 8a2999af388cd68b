#pragma once
// MNIST-format data (MNIST, Fashion-MNIST) ready for training: every image converted once
// to float32 [1, 28, 28] and standardized with the training set's mean and standard
// deviation, so that batches are plain copies.
#include <cstdint>
#include <memory>
#include <string>

#include "data/tensor_dataset.h"

namespace brisk::train {

struct MnistData {
  std::shared_ptr<data::TensorDataset> train;  // data float32 [N, 1, 28, 28], target int64 [N]
  std::shared_ptr<data::TensorDataset> test;
  double mean = 0.0;  // of the training pixels in [0, 1], which both sets are standardized with
  double std = 1.0;
};

// Reads `dir` (see data/mnist.h for the file names). `train_limit` / `test_limit` > 0 keep
// only the first that many examples of a set (for quick runs); 0 keeps all.
MnistData load_mnist(const std::string& dir, int64_t train_limit = 0, int64_t test_limit = 0);

}  // namespace brisk::train
