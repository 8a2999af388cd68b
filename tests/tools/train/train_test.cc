// Runs the training program on a few hundred Fashion-MNIST images: it trains, writes its
// CSV, its SVG chart, TensorBoard events and checkpoints, and a run resumed from the first epoch's checkpoint ends with
// the same weights, optimizer and scheduler state, bitwise, as the run that was never interrupted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"
#include "tests/tensorboard/event_file.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/run_train.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

TEST_CASE("train: trains LeNet-5, writes per-epoch metrics and checkpoints; resuming is exact") {
  std::string dir = scratch_dir("train_lenet");
  Result full = run_train("--model lenet --epochs 2 --metrics-csv " + dir + "/full.csv --save " + dir +
                          "/full-{epoch}.ckpt --tensorboard " + dir + "/tb");
  REQUIRE(full.status == 0);
  REQUIRE_THAT(full.output, Contains("lenet (61706 parameters) on cpu"));
  REQUIRE_THAT(full.output, Contains("epoch 1/2 batch 4/8"));
  REQUIRE_THAT(full.output, Contains("epoch 2/2: train loss"));
  REQUIRE_THAT(full.output, Contains(" s, peak memory "));
  REQUIRE_THAT(full.output, Contains(" reserved in training, "));
  REQUIRE_THAT(full.output, Contains(" allocated in evaluation (cpu)"));

  std::vector<std::string> csv = lines(dir + "/full.csv");
  REQUIRE(csv.size() == 3);
  REQUIRE(csv[0] == "epoch,train_loss,train_acc,test_loss,test_acc,images_per_s,seconds");
  for (int epoch = 1; epoch <= 2; ++epoch) {
    std::vector<std::string> row = split(csv[epoch]);
    REQUIRE(row.size() == 7);
    REQUIRE(row[0] == std::to_string(epoch));
    for (int column : {2, 4}) {  // accuracies
      REQUIRE(std::stod(row[column]) >= 0.0);
      REQUIRE(std::stod(row[column]) <= 1.0);
    }
    REQUIRE(std::stod(row[5]) > 0.0);  // images/s
  }
  // 256 images are enough to learn something: the second epoch's loss is lower.
  REQUIRE(std::stod(split(csv[2])[1]) < std::stod(split(csv[1])[1]));
  // Its chart next to it (tests/tools/train/metrics_svg_test checks what is drawn).
  const std::vector<std::string> svg = lines(dir + "/full.svg");
  REQUIRE(svg.front().rfind("<svg ", 0) == 0);
  REQUIRE(svg.back() == "</svg>");

  // TensorBoard: the CSV's rows against the epoch; the learning rate every step (8 an epoch);
  // the loss every 4 steps (--log-interval), the mean over those steps.
  namespace tb = brisk::tensorboard::testing;
  const std::vector<std::string> event_files = tb::event_files(dir + "/tb");
  REQUIRE(event_files.size() == 1);
  tb::Scalars scalars = tb::read_scalars(event_files[0]);
  const std::pair<const char*, int> from_csv[] = {
      {"epoch/train_loss", 1}, {"epoch/train_accuracy", 2}, {"epoch/test_loss", 3}, {"epoch/test_accuracy", 4}};
  for (const auto& [tag, column] : from_csv) {
    INFO(tag);
    REQUIRE(scalars[tag].size() == 2);
    for (int epoch = 1; epoch <= 2; ++epoch) {
      REQUIRE(scalars[tag][epoch - 1].first == epoch);
      REQUIRE(std::abs(scalars[tag][epoch - 1].second - std::stod(split(csv[epoch])[column])) < 1e-5);
    }
  }
  REQUIRE(scalars["epoch/images_per_s"].size() == 2);
  REQUIRE(scalars["epoch/seconds"].size() == 2);
  REQUIRE(scalars["train/lr"].size() == 16);
  for (int step = 1; step <= 16; ++step) REQUIRE(scalars["train/lr"][step - 1].first == step);
  REQUIRE(scalars["train/lr"][15].second < scalars["train/lr"][0].second);  // the cosine schedule
  const auto& loss = scalars["train/loss"];
  REQUIRE(loss.size() == 4);
  for (int point = 0; point < 4; ++point) REQUIRE(loss[point].first == 4 * (point + 1));
  REQUIRE(std::abs((loss[0].second + loss[1].second) / 2 - std::stod(split(csv[1])[1])) < 1e-4);
  REQUIRE(scalars["train/accuracy"].size() == 4);
  REQUIRE(scalars["train/images_per_s"].size() == 4);

  // One checkpoint per epoch ("{epoch}" in --save), each saying how far the run got.
  checkpoint::Checkpoint after_one = checkpoint::load_checkpoint(dir + "/full-1.ckpt");
  REQUIRE(after_one.progress.epoch == 1);
  REQUIRE(after_one.progress.step == 8);
  checkpoint::Checkpoint after_two = checkpoint::load_checkpoint(dir + "/full-2.ckpt");
  REQUIRE(after_two.progress.epoch == 2);
  REQUIRE(after_two.progress.batch == 0);
  REQUIRE(after_two.progress.step == 16);
  REQUIRE(after_two.metadata.at("model") == "lenet");
  REQUIRE(after_two.scheduler.at("last_epoch") == 16);

  // The run interrupted after epoch 1, resumed in a new process.
  Result resumed = run_train("--model lenet --epochs 2 --metrics-csv " + dir + "/resumed.csv --resume " + dir +
                             "/full-1.ckpt --save " + dir + "/resumed.ckpt");
  REQUIRE(resumed.status == 0);
  REQUIRE_THAT(resumed.output, Contains("resumed from " + dir + "/full-1.ckpt: epoch 2, batch 0, step 8"));
  checkpoint::Checkpoint resumed_ckpt = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  REQUIRE(resumed_ckpt.progress.step == 16);
  require_same_state(resumed_ckpt, after_two);
  // The resumed epoch's metrics are the uninterrupted run's.
  std::vector<std::string> resumed_csv = lines(dir + "/resumed.csv");
  REQUIRE(resumed_csv.size() == 2);
  for (int column : {0, 1, 2, 3, 4}) REQUIRE(split(resumed_csv[1])[column] == split(csv[2])[column]);

  // Resuming with other batches, or a longer cosine schedule, would not continue the same run.
  Result other_batch =
      run_train("--epochs 3 --batch-size 16 --metrics-csv " + dir + "/other.csv --resume " + dir + "/full-2.ckpt");
  REQUIRE(other_batch.status == 1);
  REQUIRE_THAT(other_batch.output,
               Contains("saved with batch_size 32, this run has 16; saved with epochs 2, this run has 3"));
}

TEST_CASE("train: the MLP trains too") {
  std::string dir = scratch_dir("train_mlp");
  Result run = run_train("--model mlp --epochs 1 --metrics-csv " + dir + "/m.csv");
  REQUIRE(run.status == 0);
  REQUIRE_THAT(run.output, Contains("mlp (235146 parameters)"));
  REQUIRE(lines(dir + "/m.csv").size() == 2);
  std::vector<std::string> files = checkpoint::testing::list_dir(dir);
  std::sort(files.begin(), files.end());
  REQUIRE(files == std::vector<std::string>{"m.csv", "m.svg"});  // no event files without --tensorboard
}

TEST_CASE("train: the program users run has no fault injection; BRISK_TRAIN_FAULT changes nothing") {
  std::string dir = scratch_dir("train_no_faults");
  // tests/tools/train:train_with_faults would kill rank 0 after step 1.
  REQUIRE(setenv("BRISK_TRAIN_FAULT", "step=1", 1) == 0);
  Result run = run_train("--epochs 1 --metrics-csv " + dir + "/m.csv");
  unsetenv("BRISK_TRAIN_FAULT");
  REQUIRE(run.status == 0);
  REQUIRE_THAT(run.output, !Contains("fault injection") && Contains("done: 1 epochs"));
  REQUIRE(lines(dir + "/m.csv").size() == 2);
}

TEST_CASE("train --device sim: trains on the simulated device with the CPU's numbers") {
  std::string dir = scratch_dir("train_sim");
  Result sim = run_train("--device sim --epochs 1 --metrics-csv " + dir + "/sim.csv");
  REQUIRE(sim.status == 0);
  REQUIRE_THAT(sim.output, Contains("lenet (61706 parameters) on sim:0"));
  Result cpu = run_train("--epochs 1 --metrics-csv " + dir + "/cpu.csv");
  REQUIRE(cpu.status == 0);
  // The progress lines (read from the device every 4 batches) and the epoch's row agree.
  for (const char* batch : {"epoch 1/1 batch 4/8  loss ", "epoch 1/1 batch 8/8  loss "}) {
    const std::string from_sim = sim.output.substr(sim.output.find(batch), 40);
    CHECK(from_sim == cpu.output.substr(cpu.output.find(batch), 40));
  }
  std::vector<std::string> sim_csv = lines(dir + "/sim.csv"), cpu_csv = lines(dir + "/cpu.csv");
  REQUIRE(sim_csv.size() == 2);
  for (int column : {0, 1, 2, 3, 4}) CHECK(split(sim_csv[1])[column] == split(cpu_csv[1])[column]);
}

TEST_CASE("train --cuda-graph --device sim: replayed steps train exactly as eager ones") {
  std::string dir = scratch_dir("train_graph");
  // 256 examples in batches of 48: 5 full batches (the first one eager, a warm-up), and a
  // partial one of 16, eager.
  const std::string common = "--device sim --epochs 2 --lr-schedule constant --batch-size 48 ";
  Result graphed = run_train(common + "--cuda-graph --metrics-csv " + dir + "/graph.csv");
  REQUIRE(graphed.status == 0);
  REQUIRE_THAT(graphed.output, Contains("epoch 1/2: --cuda-graph so far: 4 steps replayed, 1 captured, 2 eager") &&
                                   Contains("epoch 2/2: --cuda-graph so far: 9 steps replayed, 1 captured, 3 eager"));
  Result eager = run_train(common + "--metrics-csv " + dir + "/eager.csv");
  REQUIRE(eager.status == 0);
  std::vector<std::string> graph_csv = lines(dir + "/graph.csv"), eager_csv = lines(dir + "/eager.csv");
  REQUIRE(graph_csv.size() == 3);
  for (size_t row : {1, 2}) {
    for (int column : {0, 1, 2, 3, 4}) CHECK(split(graph_csv[row])[column] == split(eager_csv[row])[column]);
  }
  Result on_cpu = run_train("--cuda-graph --lr-schedule constant --epochs 1");
  REQUIRE(on_cpu.status != 0);
  REQUIRE_THAT(on_cpu.output,
               Contains("--cuda-graph captures a device's work: it needs --device cuda or sim, not cpu"));
}

TEST_CASE("train: bad flags and missing data fail with a message") {
  std::string dir = scratch_dir("train_errors");
  Result bad_model = run_train("--model resnet");
  REQUIRE(bad_model.status != 0);
  REQUIRE_THAT(bad_model.output, Contains("--model"));
  Result bad_device = run_train("--device tpu");
  REQUIRE(bad_device.status != 0);
  REQUIRE_THAT(bad_device.output, Contains("--device") && Contains("invalid device string 'tpu'"));

  Result no_data = run_train("--data-dir " + dir + "/nowhere --metrics-csv " + dir + "/x.csv");
  REQUIRE(no_data.status == 1);
  REQUIRE_THAT(no_data.output, Contains(dir + "/nowhere"));
}
