#pragma once
// The datasets the training program trains on, behind one type: training and test examples,
// how they become batches ready for a model (float32 images [B, C, H, W] and int64 labels),
// the images' shape and the number of classes.
//
//   mnist, fashion-mnist  MNIST-format IDX files (tools/train/mnist_data.h): uint8 in memory,
//                         standardized per batch, no augmentation
//   cifar10               the binary CIFAR-10 files (tools/train/cifar_data.h): uint8 in memory,
//                         converted and normalized per example, training examples augmented
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/collate.h"
#include "data/dataset.h"
#include "models/registry.h"

namespace brisk::train {

struct TrainingData {
  // Examples: data [C, H, W] (`image`; uint8 as stored, or float32), target int64 [].
  std::shared_ptr<const data::Dataset> train;
  std::shared_ptr<const data::Dataset> test;
  // Turns the examples of either set into a batch of float32 images [B, C, H, W] and int64
  // labels [B] (the data loaders' collate).
  data::Collate collate = data::default_collate;
  models::ImageShape image;
  int64_t num_classes = 0;
};

// "mnist", "fashion-mnist", "cifar10".
const std::vector<std::string>& dataset_names();

// Where --dataset `dataset` is read from without --data-dir: Fashion-MNIST where Debian's
// dataset-fashion-mnist installs it, the others under data/ of the working directory
// (data/mnist, data/cifar10).
std::string default_data_dir(const std::string& dataset);

// Reads `dataset` from `dir`. `train_limit` / `test_limit` > 0 keep only the first that many
// examples of a set (quick runs); 0 keeps all. Raises brisk::Error for a name not in
// dataset_names() and, for missing files, naming the files looked for and how to get them.
TrainingData load_training_data(const std::string& dataset, const std::string& dir, int64_t train_limit = 0,
                                int64_t test_limit = 0);

}  // namespace brisk::train
