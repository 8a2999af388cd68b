// make_synthetic_cifar10's files: what data::CIFAR10 reads (sizes, labels, the class
// names file), the same bytes for the same options, refused sizes, and a set that a linear
// classifier learns.
#include "tools/data/synthetic_cifar10.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "data/cifar10.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/sgd.h"
#include "tests/scratch_files.h"
#include "train/train_loop.h"

using namespace brisk;
using Catch::Matchers::Contains;

using testing::read_bytes;

TEST_CASE("write_synthetic_cifar10: files data::CIFAR10 reads, the same for the same options") {
  const std::string dir = testing::scratch_dir("synthetic_cifar10");
  tools::SyntheticCifar10Options options;
  options.train_size = 53;  // 11, 11, 11, 10, 10 over the five files
  options.test_size = 7;
  tools::write_synthetic_cifar10(dir, options);

  data::CIFAR10 train_set(dir, /*train=*/true);
  data::CIFAR10 test_set(dir, /*train=*/false);
  CHECK(train_set.size() == 53);
  CHECK(test_set.size() == 7);
  CHECK(train_set.images().sizes() == Shape{53, 32, 32, 3});
  CHECK(read_bytes(dir + "/data_batch_1.bin").size() == 11 * 3073);
  CHECK(read_bytes(dir + "/data_batch_5.bin").size() == 10 * 3073);
  const std::vector<int64_t> labels = train_set.labels().to_vector<int64_t>();
  CHECK(*std::min_element(labels.begin(), labels.end()) >= 0);
  CHECK(*std::max_element(labels.begin(), labels.end()) <= 9);
  const std::vector<uint8_t> names = read_bytes(dir + "/batches.meta.txt");
  CHECK(std::string(names.begin(), names.end()).rfind("synthetic_0\nsynthetic_1\n", 0) == 0);

  const std::string again = testing::scratch_dir("synthetic_cifar10_again");
  tools::write_synthetic_cifar10(again, options);
  for (const char* file : {"/data_batch_1.bin", "/data_batch_5.bin", "/test_batch.bin"}) {
    CHECK(read_bytes(again + file) == read_bytes(dir + file));
  }
  options.seed = 1;
  tools::write_synthetic_cifar10(again, options);
  CHECK(read_bytes(again + "/test_batch.bin") != read_bytes(dir + "/test_batch.bin"));
}

TEST_CASE("write_synthetic_cifar10: sizes that make no CIFAR-10 files are refused") {
  const std::string dir = testing::scratch_dir("synthetic_cifar10_refused");
  tools::SyntheticCifar10Options options;
  options.train_size = 4;
  CHECK_THROWS_WITH(tools::write_synthetic_cifar10(dir, options), Contains("--train-size 4 must be at least 5"));
  options.train_size = 5;
  options.test_size = 0;
  CHECK_THROWS_WITH(tools::write_synthetic_cifar10(dir, options), Contains("--test-size 0 must be at least 1"));
}

TEST_CASE("write_synthetic_cifar10: a linear classifier learns the set in a few epochs") {
  const std::string dir = testing::scratch_dir("synthetic_cifar10_learnable");
  tools::SyntheticCifar10Options options;
  options.train_size = 1000;
  options.test_size = 300;
  tools::write_synthetic_cifar10(dir, options);
  auto as_set = [](const data::CIFAR10& set) {
    Tensor x = set.images().to(kFloat32).div(255.0).sub(0.5).reshape({set.size(), 3072});
    return std::make_shared<data::TensorDataset>(x.contiguous(), set.labels());
  };
  auto train_set = as_set(data::CIFAR10(dir, true));
  auto test_set = as_set(data::CIFAR10(dir, false));

  manual_seed(0);
  nn::Sequential model(nn::Linear(3072, 10));
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  data::DataLoader train_loader(train_set, data::DataLoaderOptions().batch_size(50).shuffle(true).seed(0));
  data::DataLoader test_loader(test_set, data::DataLoaderOptions().batch_size(300));
  const double chance = train::evaluate(*model, test_loader, kCPU).read().accuracy();
  checkpoint::Progress progress;
  for (int epoch = 0; epoch < 3; ++epoch) train::train_epoch(*model, optimizer, nullptr, train_loader, kCPU, progress);
  const double learned = train::evaluate(*model, test_loader, kCPU).read().accuracy();
  INFO("test accuracy " << chance << " before training, " << learned << " after");
  CHECK(chance < 0.3);
  CHECK(learned > 0.9);
}
