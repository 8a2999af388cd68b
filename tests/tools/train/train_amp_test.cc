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

TEST_CASE("train --amp bf16: ResNet-20's first epoch on a synthetic CIFAR-format set follows float32's") {
  const std::string data = scratch_dir("train_amp_cifar");
  tools::SyntheticCifar10Options synthetic;
  synthetic.train_size = 256;
  synthetic.test_size = 128;
  tools::write_synthetic_cifar10(data, synthetic);
  const std::string dir = scratch_dir("train_amp_resnet20");
  const std::string common =
      "--dataset cifar10 --data-dir " + data +
      " --model resnet20 --epochs 1 --batch-size 32 --lr 0.05 --lr-schedule constant --test-limit 128";
  Result fp32 = run_train(common + " --metrics-csv " + dir + "/fp32.csv");
  Result bf16 = run_train(common + " --amp bf16 --metrics-csv " + dir + "/bf16.csv --save " + dir + "/bf16.ckpt");
  REQUIRE(fp32.status == 0);
  REQUIRE(bf16.status == 0);
  // Same weights and batches: the mean training loss of the first epoch differs by bfloat16's
  // rounding only.
  const double l32 = first_epoch(dir + "/fp32.csv", "train_loss"), l16 = first_epoch(dir + "/bf16.csv", "train_loss");
  INFO("first epoch's training loss: float32 " << l32 << ", bfloat16 autocast " << l16);
  CHECK(std::abs(l16 - l32) <= 0.05 * l32);
  checkpoint::Checkpoint saved = checkpoint::load_checkpoint(dir + "/bf16.ckpt");
  CHECK(saved.metadata.at("amp") == "bf16");
  CHECK(saved.metadata.count("grad_scaler") == 0);
  CHECK(saved.model.at("conv1.weight").dtype() == kFloat32);

  Result refused = run_train(common + " --metrics-csv " + dir + "/r.csv --epochs 2 --resume " + dir + "/bf16.ckpt");
  CHECK(refused.status != 0);
  CHECK_THAT(refused.output, Contains("amp"));
}

TEST_CASE("train --amp fp16: the GradScaler's state is checkpointed and a resumed run is exact") {
  const std::string dir = scratch_dir("train_amp_fp16");
  const std::string common = "--model lenet --epochs 2 --lr 0.05 --amp fp16 --metrics-csv " + dir;
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
