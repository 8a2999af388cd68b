// Runs the training program on a small synthetic CIFAR-format set (tools/data): the MLP learns
// it with the CIFAR recipe's options (AdamW or SGD with Nesterov and weight decay, warm-up,
// cosine or one-cycle, clipping, accumulation, label smoothing), a run resumed from the first
// epoch's checkpoint ends bitwise where the uninterrupted one does, a resume with other
// settings is refused naming the setting; missing data, a model that does not take the images
// and clashing flags fail with a message.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
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

// A synthetic CIFAR-format set of 192 training and 64 test images (tools/data), once per test run.
const std::string& synthetic_cifar10() {
  static const std::string dir = [] {
    std::string d = scratch_dir("train_synthetic_cifar10");
    tools::SyntheticCifar10Options options;
    options.train_size = 192;
    options.test_size = 64;
    tools::write_synthetic_cifar10(d, options);
    return d;
  }();
  return dir;
}

}  // namespace

TEST_CASE("train --dataset cifar10: the MLP learns a synthetic CIFAR-format set with the CIFAR recipe's options; "
          "resuming is exact") {
  const std::string dir = scratch_dir("train_cifar");
  const std::string recipes[] = {
      // AdamW, cosine after a warm-up, clipping, 2 micro-batches a step, label smoothing
      "--optimizer adamw --lr 0.002 --weight-decay 0.05 --lr-schedule cosine --warmup-epochs 0.5 --max-grad-norm 1 "
      "--accumulate 2 --label-smoothing 0.1",
      // SGD with Nesterov momentum and weight decay, one-cycle
      "--optimizer sgd --lr 0.05 --momentum 0.9 --nesterov --weight-decay 5e-4 --lr-schedule onecycle"};
  for (int r = 0; r < 2; ++r) {
    const std::string run = dir + "/" + std::to_string(r);
    const std::string common = "--dataset cifar10 --data-dir " + synthetic_cifar10() + " --model mlp --epochs 2 " +
                               recipes[r] + " --metrics-csv " + run;
    Result full = run_train(common + "-full.csv --save " + run + "-full-{epoch}.ckpt");
    REQUIRE(full.status == 0);
    REQUIRE_THAT(full.output, Contains("mlp (820874 parameters) on cpu") &&
                                  Contains("192 3x32x32 training and 64 test images from " + synthetic_cifar10()));
    REQUIRE_THAT(full.output, Contains(r == 0 ? "AdamW" : "SGD") && Contains("6 steps an epoch"));
    std::vector<std::string> csv = lines(run + "-full.csv");
    REQUIRE(csv.size() == 3);
    CHECK(std::stod(split(csv[2])[4]) > 0.5);  // test accuracy after 2 epochs of 192 images (chance: 0.1)

    checkpoint::Checkpoint after_two = checkpoint::load_checkpoint(run + "-full-2.ckpt");
    CHECK(after_two.progress.step == 12);
    CHECK(after_two.metadata.at("dataset") == "cifar10");
    CHECK(after_two.metadata.at("optimizer") == (r == 0 ? "adamw" : "sgd"));
    CHECK(after_two.metadata.at("accumulate") == (r == 0 ? "2" : "1"));
    CHECK(after_two.optimizer_name == (r == 0 ? "AdamW" : "SGD"));

    Result resumed =
        run_train(common + "-resumed.csv --resume " + run + "-full-1.ckpt --save " + run + "-resumed.ckpt");
    REQUIRE(resumed.status == 0);
    checkpoint::Checkpoint resumed_ckpt = checkpoint::load_checkpoint(run + "-resumed.ckpt");
    require_same_state(resumed_ckpt, after_two);
    std::vector<std::string> resumed_csv = lines(run + "-resumed.csv");
    REQUIRE(resumed_csv.size() == 2);
    for (int column : {0, 1, 2, 3, 4}) CHECK(split(resumed_csv[1])[column] == split(csv[2])[column]);
  }

  // A resumed run must train as the saved one did.
  const std::string saved = dir + "/0-full-1.ckpt";
  const std::string base = "--dataset cifar10 --data-dir " + synthetic_cifar10() +
                           " --model mlp --epochs 2 --metrics-csv " + dir + "/x.csv --resume " + saved;
  // The saved run's settings, then (a flag given twice takes its last value) the one that differs.
  const std::string same = " --optimizer adamw --lr-schedule cosine --warmup-epochs 0.5 --max-grad-norm 1 "
                           "--label-smoothing 0.1 --accumulate 2";
  const std::pair<std::string, std::string> changes[] = {
      {" --accumulate 1", "saved with accumulate 2, this run has 1"},
      {" --optimizer sgd", "saved with optimizer adamw, this run has sgd"},
      {" --lr-schedule onecycle", "saved with lr_schedule cosine, this run has onecycle"},
      {" --warmup-epochs 0", "saved with warmup_epochs 0.5, this run has 0"},
      {" --max-grad-norm 2", "saved with max_grad_norm 1, this run has 2"},
      {" --dataset fashion-mnist --data-dir external/fashion_mnist",
       "saved with dataset cifar10, this run has fashion-mnist"}};
  for (const auto& [flags, message] : changes) {
    Result other = run_train(base + same + flags);
    REQUIRE(other.status == 1);
    CHECK_THAT(other.output, Contains(message));
  }
}

TEST_CASE("train --dataset cifar10: missing data, a model that does not take the images, flags that clash") {
  const std::string dir = scratch_dir("train_cifar_errors");
  Result no_data =
      run_train("--dataset cifar10 --data-dir " + dir + "/nowhere --model mlp --metrics-csv " + dir + "/x.csv");
  REQUIRE(no_data.status == 1);
  CHECK_THAT(no_data.output,
             Contains(dir + "/nowhere/data_batch_1.bin or " + dir + "/nowhere/cifar-10-batches-bin/data_batch_1.bin") &&
                 Contains("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"));
  Result lenet = run_train("--dataset cifar10 --data-dir " + synthetic_cifar10() + " --model lenet --metrics-csv " +
                           dir + "/x.csv");
  REQUIRE(lenet.status == 1);
  CHECK_THAT(lenet.output, Contains("--model lenet takes 1x28x28 images, and the dataset's are 3x32x32"));
  Result clash = run_train("--optimizer adamw --nesterov");
  REQUIRE(clash.status == 1);
  CHECK_THAT(clash.output, Contains("--nesterov is SGD's"));
}

TEST_CASE("train --dataset cifar10 --model resnet20: the CIFAR ResNet trains and saves a checkpoint with its names") {
  const std::string dir = scratch_dir("train_cifar_resnet20");
  Result run = run_train("--dataset cifar10 --data-dir " + synthetic_cifar10() +
                         " --model resnet20 --epochs 1 --train-limit 64 --test-limit 32 --batch-size 16 --lr 0.1 "
                         "--nesterov --weight-decay 5e-4 --metrics-csv " +
                         dir + "/m.csv --save " + dir + "/r.ckpt");
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Contains("resnet20 (269722 parameters) on cpu"));
  checkpoint::Checkpoint saved = checkpoint::load_checkpoint(dir + "/r.ckpt");
  CHECK(saved.metadata.at("model") == "resnet20");
  CHECK(saved.model.contains("layer1.0.bn1.running_mean"));
  CHECK(saved.progress.step == 4);
}
