#include "tools/train/training_data.h"

#include <fmt/format.h>

#include "data/mnist.h"
#include "tensor/error.h"
#include "tools/train/cifar_data.h"
#include "tools/train/mnist_data.h"

namespace brisk::train {

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names{"mnist", "fashion-mnist", "cifar10"};
  return names;
}

std::string default_data_dir(const std::string& dataset) {
  if (dataset == "fashion-mnist") return "/usr/share/datasets/fashion-mnist";
  if (dataset == "mnist") return "data/mnist";
  if (dataset == "cifar10") return "data/cifar10";
  BRISK_FAIL("unknown dataset \"{}\" (expected mnist, fashion-mnist or cifar10)", dataset);
}

TrainingData load_training_data(const std::string& dataset, const std::string& dir, int64_t train_limit,
                                int64_t test_limit) {
  if (dataset == "cifar10") return load_cifar10(dir, train_limit, test_limit);
  BRISK_CHECK(dataset == "mnist" || dataset == "fashion-mnist",
              "unknown dataset \"{}\" (expected mnist, fashion-mnist or cifar10)", dataset);
  MnistData mnist = load_mnist(dir, train_limit, test_limit);
  const Tensor& images = mnist.train->data();  // [N, 1, H, W]
  return {mnist.train, mnist.test, standardizing_collate(mnist.mean, mnist.std),
          models::ImageShape{images.size(1), images.size(2), images.size(3)}, data::MNIST::kNumClasses};
}

}  // namespace brisk::train
