// CIFAR-10 for the training program (tools/train/cifar_data.h, training_data.h): the message
// when the files are missing, examples converted and normalized per channel from the uint8
// images, training examples cropped and flipped by the loader's per-example generators.
#include "tools/train/cifar_data.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "autograd/ops.h"
#include "data/cifar10.h"
#include "data/data_loader.h"
#include "tensor/error.h"
#include "tests/scratch_files.h"
#include "tools/data/synthetic_cifar10.h"
#include "tools/train/mnist_data.h"
#include "tools/train/training_data.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

TEST_CASE("load_cifar10 without the files names each one looked for and how to get the data") {
  const std::string dir = testing::scratch_dir("cifar_missing");
  try {
    load_training_data("cifar10", dir);
    FAIL("no error");
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const char* file : {"data_batch_1.bin", "data_batch_5.bin", "test_batch.bin"}) {
      CHECK_THAT(message, Contains(dir + "/" + file + " or " + dir + "/cifar-10-batches-bin/" + file));
    }
    CHECK_THAT(message, Contains("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"));
    CHECK_THAT(message, Contains("tar -xz -C " + dir));
    CHECK_THAT(message, Contains("make_synthetic_cifar10 -- --output-dir " + dir));
  }
}

TEST_CASE("load_cifar10: test images as ToTensor and Normalize make them; training images augmented") {
  const std::string dir = testing::scratch_dir("cifar_loaded");
  tools::SyntheticCifar10Options options;
  options.train_size = 40;
  options.test_size = 12;
  tools::write_synthetic_cifar10(dir, options);
  TrainingData cifar = load_training_data("cifar10", dir, /*train_limit=*/30, /*test_limit=*/0);
  CHECK(cifar.train->size() == 30);
  CHECK(cifar.test->size() == 12);
  CHECK(cifar.image == models::ImageShape{3, 32, 32});
  CHECK(cifar.num_classes == 10);

  // A test image: (byte / 255 - mean[c]) / std[c] in float32, channels first.
  data::CIFAR10 raw(dir, /*train=*/false);
  data::Example<> example = cifar.test->get(5);
  REQUIRE(example.data.sizes() == Shape{3, 32, 32});
  REQUIRE(example.data.dtype() == kFloat32);
  CHECK(example.target.item<int64_t>() == raw.labels()[5].item<int64_t>());
  for (int64_t c = 0; c < 3; ++c) {
    const uint8_t byte = raw.images()[5][7][9][c].item<uint8_t>();
    const float want =
        (static_cast<float>(byte) / 255.0f - static_cast<float>(kCifar10Mean[c])) / static_cast<float>(kCifar10Std[c]);
    CHECK(example.data[c][7][9].item<float>() == want);
  }

  // Training batches: the loader's seed and the epoch decide the crops and flips.
  auto batches = [&](uint64_t seed, int64_t epoch, int workers = 0) {
    data::DataLoader loader(cifar.train, data::DataLoaderOptions().batch_size(30).seed(seed).num_workers(workers));
    loader.set_epoch(epoch);
    return (*loader.begin()).data;
  };
  Tensor a = batches(1, 0);
  CHECK(a.sizes() == Shape{30, 3, 32, 32});
  CHECK(equal(a, batches(1, 0)));
  CHECK(equal(a, batches(1, 0, /*workers=*/2)));  // --workers changes no number
  CHECK_FALSE(equal(a, batches(1, 1)));
  CHECK_FALSE(equal(a, batches(2, 0)));
}

TEST_CASE("load_training_data: MNIST-format datasets, unknown names, default directories") {
  CHECK(default_data_dir("fashion-mnist") == "/usr/share/datasets/fashion-mnist");
  CHECK(default_data_dir("cifar10") == "data/cifar10");
  CHECK_THROWS_WITH(load_training_data("imagenet", "x"), Contains("unknown dataset \"imagenet\""));
  TrainingData fashion = load_training_data("fashion-mnist", "external/fashion_mnist", 20, 10);
  CHECK(fashion.image == models::ImageShape{1, 28, 28});
  CHECK(fashion.train->size() == 20);
  CHECK(fashion.train->get(0).data.sizes() == Shape{1, 28, 28});
}

TEST_CASE("MNIST-format images stay uint8 in memory and are standardized per batch, as the whole set would be") {
  MnistData fashion = load_mnist("external/fashion_mnist", 300, 50);
  const Tensor& images = fashion.train->data();
  CHECK(images.dtype() == kUInt8);
  CHECK(images.sizes() == Shape{300, 1, 28, 28});
  CHECK(fashion.test->data().dtype() == kUInt8);
  CHECK(fashion.mean > 0.2);  // Fashion-MNIST's training pixels: mean 0.2860, std 0.3530
  CHECK(fashion.mean < 0.4);

  // A batch of scattered examples, collated, against the whole set converted at once.
  const Tensor whole = standardize(images, fashion.mean, fashion.std);
  REQUIRE(whole.dtype() == kFloat32);
  std::vector<data::Example<>> examples;
  const std::vector<int64_t> indices{299, 0, 17, 150, 151, 42, 7};
  for (int64_t i : indices) examples.push_back(fashion.train->get(i));
  data::Batch batch = standardizing_collate(fashion.mean, fashion.std)(examples);
  REQUIRE(batch.data.dtype() == kFloat32);
  REQUIRE(batch.data.sizes() == Shape{7, 1, 28, 28});
  CHECK(batch.target.dtype() == kInt64);
  for (size_t k = 0; k < indices.size(); ++k) {
    INFO("example " << indices[k]);
    CHECK(equal(batch.data[k], whole[indices[k]]));
    CHECK(batch.target[k].item<int64_t>() == fashion.train->target()[indices[k]].item<int64_t>());
  }
  // Each value is float32 arithmetic on the pixel: (p / 255 - mean) / std.
  const std::vector<uint8_t> pixels = images[150].flatten().to_vector<uint8_t>();
  const std::vector<float> values = batch.data[3].flatten().to_vector<float>();
  for (size_t i = 0; i < pixels.size(); ++i) {
    const float expected =
        (static_cast<float>(pixels[i]) / 255.0f - static_cast<float>(fashion.mean)) / static_cast<float>(fashion.std);
    REQUIRE(values[i] == expected);
  }
}
