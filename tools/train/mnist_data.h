#pragma once
// MNIST-format data (MNIST, Fashion-MNIST) for training: the images stay uint8 [1, 28, 28] in
// memory, as stored (a quarter of float32's size), and each batch is converted to float32 and
// standardized with the training set's mean and standard deviation when it is collated, in
// the data loader's workers.
#include <cstdint>
#include <memory>
#include <string>

#include "data/collate.h"
#include "data/tensor_dataset.h"

namespace brisk::train {

struct MnistData {
  std::shared_ptr<data::TensorDataset> train;  // data uint8 [N, 1, 28, 28], target int64 [N]
  std::shared_ptr<data::TensorDataset> test;
  double mean = 0.0;  // of the training pixels in [0, 1], which both sets are standardized with
  double std = 1.0;
};

// Reads `dir` (see data/mnist.h for the file names). `train_limit` / `test_limit` > 0 keep
// only the first that many examples of a set (for quick runs); 0 keeps all.
MnistData load_mnist(const std::string& dir, int64_t train_limit = 0, int64_t test_limit = 0);

// uint8 images scaled to [0, 1] and standardized, as float32: (x / 255 - mean) / std, each
// step in float32, so any batch gets bitwise the values the whole set would.
Tensor standardize(const Tensor& images, double mean, double std);

// default_collate, then standardize the batch's images.
data::Collate standardizing_collate(double mean, double std);

}  // namespace brisk::train
