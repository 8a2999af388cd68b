// train --channels-last: ResNet-20 with channels_last parameters (NHWC convolutions) on a
// synthetic CIFAR-format set follows the contiguous run, says so in its log, and saves a
// checkpoint that a contiguous run resumes.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tests/checkpoint/file_util.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/run_train.h"
#include "tools/data/synthetic_cifar10.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

namespace {

// Column `name` of the first epoch's row of `csv`.
double first_epoch(const std::string& csv, const std::string& name) {
  std::vector<std::string> rows = lines(csv);
  std::vector<std::string> header = split(rows.at(0)), first = split(rows.at(1));
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return std::stod(first.at(i));
  }
  FAIL("no " << name << " column in " << csv);
  return 0;
}

}  // namespace

TEST_CASE("train --channels-last: ResNet-20's first epoch follows the contiguous run's") {
  const std::string data = scratch_dir("train_channels_last_cifar");
  tools::SyntheticCifar10Options synthetic;
  synthetic.train_size = 128;
  synthetic.test_size = 64;
  tools::write_synthetic_cifar10(data, synthetic);
  const std::string dir = scratch_dir("train_channels_last_resnet20");
  const std::string common =
      "--dataset cifar10 --data-dir " + data +
      " --model resnet20 --epochs 1 --batch-size 32 --lr 0.05 --lr-schedule constant --test-limit 64";
  Result plain = run_train(common + " --metrics-csv " + dir + "/plain.csv");
  Result nhwc = run_train(common + " --channels-last --metrics-csv " + dir + "/cl.csv --save " + dir + "/cl.ckpt");
  REQUIRE(plain.status == 0);
  REQUIRE(nhwc.status == 0);
  CHECK_THAT(nhwc.output, Contains("--channels-last"));
  // Same weights and batches; the kernels differ (NHWC against blocked oneDNN layouts, direct
  // against Winograd), so the losses agree to float32 rounding, not bitwise.
  const double a = first_epoch(dir + "/plain.csv", "train_loss"), b = first_epoch(dir + "/cl.csv", "train_loss");
  INFO("first epoch's training loss: contiguous " << a << ", channels_last " << b);
  CHECK(std::abs(a - b) <= 1e-3 * a);
  // The checkpoint holds plain tensors: a contiguous run resumes it.
  Result resumed = run_train(common + " --epochs 2 --metrics-csv " + dir + "/resumed.csv --resume " + dir + "/cl.ckpt");
  CHECK(resumed.status == 0);
}
