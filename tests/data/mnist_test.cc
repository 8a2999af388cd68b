// MNIST on files the test writes (plain and .gz names), on the real Fashion-MNIST files, and
// its errors for files that are present but wrong.
#include "data/mnist.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "data/file_bytes.h"
#include "data/make_data_loader.h"
#include "data/transforms/normalize.h"
#include "tensor/error.h"
#include "tests/data/file_util.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

// Five 2x3 images whose pixel j of image i is 10 * i + j, labelled 4, 3, 2, 1, 0.
void write_tiny_mnist(const std::string& dir, const std::string& prefix, bool gz) {
  std::vector<uint8_t> pixels;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 6; ++j) pixels.push_back(static_cast<uint8_t>(10 * i + j));
  }
  std::vector<uint8_t> images = data::testing::idx(0x08, {5, 2, 3}, pixels);
  std::vector<uint8_t> labels = data::testing::idx(0x08, {5}, {4, 3, 2, 1, 0});
  std::string suffix = gz ? ".gz" : "";
  data::testing::write_bytes(dir + "/" + prefix + "-images-idx3-ubyte" + suffix,
                             gz ? data::testing::gzip(images) : images);
  data::testing::write_bytes(dir + "/" + prefix + "-labels-idx1-ubyte" + suffix,
                             gz ? data::testing::gzip(labels) : labels);
}

// Where Bazel puts @fashion_mnist//:files, or where Debian installs them.
std::string fashion_mnist_root() {
  for (const char* dir : {"external/fashion_mnist", "../fashion_mnist", "/usr/share/datasets/fashion-mnist"}) {
    if (file_exists(std::string(dir) + "/t10k-labels-idx1-ubyte.gz")) return dir;
  }
  FAIL("Fashion-MNIST not found (data = [\"@fashion_mnist//:files\"])");
  return "";
}

}  // namespace

TEST_CASE("MNIST reads the train and test files, plain or gzip", "[data][mnist]") {
  std::string dir = data::testing::scratch_dir("mnist_tiny");
  write_tiny_mnist(dir, "train", false);
  write_tiny_mnist(dir, "t10k", true);
  for (bool train : {true, false}) {
    MNIST mnist(dir, train);
    REQUIRE(mnist.size() == 5);
    CHECK(mnist.images().dtype() == kUInt8);
    CHECK(mnist.images().sizes() == Shape{5, 2, 3});
    CHECK(mnist.labels().dtype() == kInt64);
    CHECK(mnist.labels().to_vector<int64_t>() == std::vector<int64_t>{4, 3, 2, 1, 0});
    Example<> e = mnist.get(3);
    CHECK(e.data.sizes() == Shape{2, 3});
    CHECK(e.data.to_vector<uint8_t>() == std::vector<uint8_t>{30, 31, 32, 33, 34, 35});
    CHECK(e.target.dim() == 0);
    CHECK(e.target.item<int64_t>() == 1);
    // get() hands out views of the one block of pixels, not copies.
    CHECK(e.data.storage() == mnist.images().storage());
    CHECK_THROWS_WITH(mnist.get(5), Contains("MNIST: index 5 is out of range for a dataset of 5 examples"));
  }
}

TEST_CASE("MNIST reads the real Fashion-MNIST files", "[data][mnist]") {
  std::string root = fashion_mnist_root();
  MNIST train(root, true);
  MNIST test(root, false);
  CHECK(train.images().sizes() == Shape{60000, 28, 28});
  CHECK(test.images().sizes() == Shape{10000, 28, 28});
  // The first labels, as torchvision.datasets.FashionMNIST gives them (read with gzip + numpy).
  std::vector<int64_t> first_train = {9, 0, 0, 3, 0, 2, 7, 2, 5, 5, 0, 9, 5, 5, 7, 9, 1, 0, 6, 4};
  std::vector<int64_t> first_test = {9, 2, 1, 1, 6, 1, 4, 6, 5, 7, 4, 5, 7, 3, 4, 1, 2, 4, 8, 0};
  CHECK(train.labels().narrow(0, 0, 20).to_vector<int64_t>() == first_train);
  CHECK(test.labels().narrow(0, 0, 20).to_vector<int64_t>() == first_test);
  // Ten balanced classes; pixel sums of the first image and of the whole test set, and one row.
  CHECK(train.labels().eq(7).sum().item<int64_t>() == 6000);
  CHECK(train.images()[0].to(kInt64).sum().item<int64_t>() == 76247);
  CHECK(test.images().to(kInt64).sum().item<int64_t>() == 573469082);
  CHECK(test.get(0).data[10].to_vector<uint8_t>() ==
        std::vector<uint8_t>{0, 0,  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0, 4,
                             0, 53, 129, 120, 147, 175, 157, 166, 135, 154, 168, 140, 0, 0});
}

TEST_CASE("datasets::MNIST: libtorch's examples and pipeline over the real files", "[data][mnist]") {
  std::string root = fashion_mnist_root();
  MNIST bytes(root, false);
  auto test = datasets::MNIST(root, datasets::MNIST::Mode::kTest);
  CHECK_FALSE(test.is_train());
  CHECK(datasets::MNIST(root).is_train());
  CHECK(test.size().value() == 10000);
  CHECK(test.targets().dtype() == kInt64);
  // As libtorch: float32 [1, 28, 28], the bytes / 255 computed in float32.
  Example<> first = test.get(0);
  CHECK(first.data.dtype() == kFloat32);
  CHECK(first.data.sizes() == Shape{1, 28, 28});
  CHECK(first.target.item<int64_t>() == 9);
  std::vector<uint8_t> row = bytes.get(0).data[10].to_vector<uint8_t>();
  std::vector<float> scaled = first.data[0][10].to_vector<float>();
  for (size_t i = 0; i < row.size(); ++i) CHECK(scaled[i] == static_cast<float>(row[i]) / 255.0f);
  CHECK(test.images().sizes() == Shape{10000, 1, 28, 28});
  CHECK(equal(test.images()[0], first.data));

  // The MNIST example of libtorch, spelled as there: (x - mean) / std in float32, stacked batches.
  auto normalized = datasets::MNIST(root, datasets::MNIST::Mode::kTest)
                        .map(transforms::Normalize<>(0.1307, 0.3081))
                        .map(transforms::Stack<>());
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(normalized), 64);
  Batch batch = *loader->begin();
  CHECK(batch.data.sizes() == Shape{64, 1, 28, 28});
  CHECK(batch.target.narrow(0, 0, 20).to_vector<int64_t>() ==
        std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7, 4, 5, 7, 3, 4, 1, 2, 4, 8, 0});
  std::vector<float> got = batch.data[0][0][10].to_vector<float>();
  for (size_t i = 0; i < row.size(); ++i) {
    CHECK(got[i] == (static_cast<float>(row[i]) / 255.0f - 0.1307f) / 0.3081f);
  }
}

TEST_CASE("MNIST errors name the file and what is wrong with it", "[data][mnist]") {
  std::string dir = data::testing::scratch_dir("mnist_errors");
  CHECK_THROWS_WITH(MNIST(dir, true), Contains("missing file") && Contains(dir + "/train-images-idx3-ubyte") &&
                                          Contains(dir + "/train-images-idx3-ubyte.gz"));

  std::string images = dir + "/train-images-idx3-ubyte";
  std::string labels = dir + "/train-labels-idx1-ubyte";
  data::testing::write_bytes(images, data::testing::idx(0x08, {3, 2, 2}, std::vector<uint8_t>(12, 0)));

  data::testing::write_bytes(labels, data::testing::idx(0x08, {2}, {1, 2}));
  CHECK_THROWS_WITH(MNIST(dir, true),
                    Contains(labels) && Contains("has 2 labels") && Contains(images) && Contains("has 3 images"));

  data::testing::write_bytes(labels, data::testing::idx(0x08, {3}, {1, 10, 2}));
  CHECK_THROWS_WITH(MNIST(dir, true), Contains(labels) && Contains("label 10 of example 1 (byte offset 9") &&
                                          Contains("out of range [0, 9]"));

  data::testing::write_bytes(labels, data::testing::idx(0x08, {3, 1}, {1, 2, 3}));
  CHECK_THROWS_WITH(MNIST(dir, true), Contains(labels) && Contains("[3, 1] uint8") && Contains("1 dim [N]"));

  data::testing::write_bytes(labels, data::testing::idx(0x0c, {3}, std::vector<uint8_t>(12, 0)));
  CHECK_THROWS_WITH(MNIST(dir, true), Contains(labels) && Contains("[3] int32") && Contains("expected uint8"));

  data::testing::write_bytes(labels, data::testing::idx(0x08, {3}, {0, 1, 2}));
  data::testing::write_bytes(images, data::testing::idx(0x08, {3, 4}, std::vector<uint8_t>(12, 0)));
  CHECK_THROWS_WITH(MNIST(dir, true), Contains(images) && Contains("[3, 4] uint8") && Contains("3 dims [N, H, W]"));

  data::testing::write_bytes(images, {0x00, 0x00, 0x09});
  CHECK_THROWS_WITH(MNIST(dir, true), Contains(images) && Contains("too short"));
}
