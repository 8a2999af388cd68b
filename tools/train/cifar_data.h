#pragma once
// CIFAR-10 ready for training, as torchvision's usual recipe: the images stay uint8 in memory
// (data::CIFAR10) and each example is converted when it is loaded,
//
//   training  ToTensor, RandomCrop(32, padding 4), RandomHorizontalFlip, Normalize
//   test      ToTensor, Normalize
//
// with CIFAR-10's per-channel mean and standard deviation below (whatever the files hold:
// the synthetic set of tools/data/make_synthetic_cifar10 is normalized the same way). The
// random crops and flips draw from the data loader's per-example generators, so they depend
// only on the loader's seed, the epoch and the example's position (data/random.h).
#include <array>
#include <cstdint>
#include <string>

#include "tools/train/training_data.h"

namespace brisk::train {

// Of the 50000 training images' pixels in [0, 1], per channel (red, green, blue), as commonly
// used (e.g. the ResNet and airbench CIFAR-10 recipes): the standard deviation is of all
// pixels of a channel, not the mean of per-image ones.
constexpr std::array<double, 3> kCifar10Mean{0.4914, 0.4822, 0.4465};
constexpr std::array<double, 3> kCifar10Std{0.2470, 0.2435, 0.2616};

// Where to get the binary version of CIFAR-10 (about 163 MB; unpacks to cifar-10-batches-bin/).
constexpr const char* kCifar10Url = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz";

// Reads `dir` (data_batch_1.bin ... data_batch_5.bin and test_batch.bin, in `dir` or in
// `dir`/cifar-10-batches-bin). `train_limit` / `test_limit` > 0 keep only the first that many
// examples. With files missing, raises brisk::Error listing every path looked for and how to
// get the data (kCifar10Url, or a synthetic set).
TrainingData load_cifar10(const std::string& dir, int64_t train_limit = 0, int64_t test_limit = 0);

}  // namespace brisk::train
