// train --amp: ResNet-20 under bfloat16 autocast on a synthetic CIFAR-format set, and LeNet-5
// under float16 with its GradScaler, whose state the checkpoint keeps so that a resumed run
// ends bitwise where the uninterrupted one does; a resume with another --amp is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/checkpoint/file_util.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/run_train.h"
#include "tools/data/synthetic_cifar10.h"

using namespace brisk;
using brisk::testing::lines;
using brisk::testing::require_same_state;
using brisk::testing::Result;
using brisk::testing::run_train;
using brisk::testing::scratch_dir;
using brisk::testing::split;
using Catch::Matchers::Contains;

namespace {

// Test accuracy (the CSV's column) of the last epoch of `csv`.
double last_test_accuracy(const std::string& csv) {
  std::vector<std::string> rows = lines(csv);
  std::vector<std::string> header = split(rows.at(0)), last = split(rows.back());
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "test_acc") return std::stod(last.at(i));
  }
  FAIL("no test_acc column in " << csv);
  return 0;
}

}  // namespace

TEST_CASE("train --amp bf16: ResNet-20 learns a synthetic CIFAR-format set as float32 does") {
  const std::string data = scratch_dir("train_amp_cifar");
  tools::SyntheticCifar10Options synthetic;
  synthetic.train_size = 256;
  synthetic.test_size = 128;
  tools::write_synthetic_cifar10(data, synthetic);
  const std::string dir = scratch_dir("train_amp_resnet20");
  const std::string common = "--dataset cifar10 --data-dir " + data +
                             " --model resnet20 --epochs 2 --batch-size 32 --lr 0.05 --no-plot --test-limit 128";
  Result fp32 = run_train(common + " --metrics-csv " + dir + "/fp32.csv");
  Result bf16 = run_train(common + " --amp bf16 --metrics-csv " + dir + "/bf16.csv --save " + dir + "/bf16.ckpt");
  REQUIRE(fp32.status == 0);
  REQUIRE(bf16.status == 0);
  const double a32 = last_test_accuracy(dir + "/fp32.csv"), a16 = last_test_accuracy(dir + "/bf16.csv");
  INFO("float32 test accuracy " << a32 << ", bfloat16 autocast " << a16);
  CHECK(a32 > 0.5);
  CHECK(std::abs(a16 - a32) <= 0.05);
  checkpoint::Checkpoint saved = checkpoint::load_checkpoint(dir + "/bf16.ckpt");
  CHECK(saved.metadata.at("amp") == "bf16");
  CHECK(saved.metadata.count("grad_scaler") == 0);
  CHECK(saved.model.at("conv1.weight").dtype() == kFloat32);

  Result refused = run_train(common + " --metrics-csv " + dir + "/r.csv --epochs 3 --resume " + dir + "/bf16.ckpt");
  CHECK(refused.status != 0);
  CHECK_THAT(refused.output, Contains("amp"));
}

TEST_CASE("train --amp fp16: the GradScaler's state is checkpointed and a resumed run is exact") {
  const std::string dir = scratch_dir("train_amp_fp16");
  const std::string common = "--model lenet --epochs 2 --lr 0.05 --amp fp16 --no-plot --metrics-csv " + dir;
  Result full = run_train(common + "/full.csv --save " + dir + "/full-{epoch}.ckpt");
  REQUIRE(full.status == 0);
  checkpoint::Checkpoint first = checkpoint::load_checkpoint(dir + "/full-1.ckpt");
  REQUIRE(first.metadata.count("grad_scaler") == 1);
  CHECK_THAT(first.metadata.at("grad_scaler"), Contains("\"scale\":") && Contains("\"_growth_tracker\":"));
  Result resumed = run_train(common + "/resumed.csv --resume " + dir + "/full-1.ckpt --save " + dir + "/resumed.ckpt");
  REQUIRE(resumed.status == 0);
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/full-2.ckpt");
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  require_same_state(a, b);
  CHECK(a.metadata.at("grad_scaler") == b.metadata.at("grad_scaler"));
}
