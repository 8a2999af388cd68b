// Runs the train_mnist program on a few hundred Fashion-MNIST images: it trains, writes its
// CSV, its PNG plot and checkpoints, and a run resumed from the first epoch's checkpoint ends with the same
// weights, optimizer and scheduler state, bitwise, as the run that was never interrupted.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/png_decode.h"

using namespace brisk;
using brisk::testing::lines;
using brisk::testing::scratch_dir;
using brisk::testing::split;
using Catch::Matchers::Contains;

namespace {

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

// Runs train_mnist (from the runfiles tree) on the first 256 training and 200 test images,
// in batches of 32 unless `args` say otherwise.
Result train_mnist(const std::string& args) {
  std::string command = "tools/train/train_mnist --data-dir external/fashion_mnist --train-limit 256 "
                        "--test-limit 200 --device cpu --log-interval 4 " +
                        args;
  if (args.find("--batch-size") == std::string::npos) command += " --batch-size 32";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  Result result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  UNSCOPED_INFO("$ " << command << "\n" << result.output);
  return result;
}

}  // namespace

TEST_CASE("train_mnist: trains LeNet-5, writes per-epoch metrics and checkpoints; resuming is exact") {
  std::string dir = scratch_dir("train_mnist");
  Result full =
      train_mnist("--model lenet --epochs 2 --metrics-csv " + dir + "/full.csv --save " + dir + "/full-{epoch}.ckpt");
  REQUIRE(full.status == 0);
  REQUIRE_THAT(full.output, Contains("lenet (61706 parameters) on cpu"));
  REQUIRE_THAT(full.output, Contains("epoch 1/2 batch 4/8"));
  REQUIRE_THAT(full.output, Contains("epoch 2/2: train loss"));

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
  // Its plot next to it (tests/tools/train/metrics_plot_test checks what is drawn).
  namespace png = brisk::train::testing;
  REQUIRE(png::decode_png(png::read_file(dir + "/full.png")).width > 0);

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
  Result resumed = train_mnist("--model lenet --epochs 2 --metrics-csv " + dir + "/resumed.csv --resume " + dir +
                               "/full-1.ckpt --save " + dir + "/resumed.ckpt");
  REQUIRE(resumed.status == 0);
  REQUIRE_THAT(resumed.output, Contains("resumed from " + dir + "/full-1.ckpt: epoch 2, batch 0, step 8"));
  checkpoint::Checkpoint resumed_ckpt = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  REQUIRE(resumed_ckpt.progress.step == 16);
  REQUIRE(resumed_ckpt.model.keys() == after_two.model.keys());
  for (const auto& [name, tensor] : after_two.model) {
    INFO(name);
    REQUIRE(brisk::testing::same_bits(resumed_ckpt.model[name], tensor));
  }
  for (const auto& [name, tensor] : after_two.optimizer.tensors) {
    REQUIRE(brisk::testing::same_bits(resumed_ckpt.optimizer.tensors.at(name), tensor));
  }
  REQUIRE(resumed_ckpt.scheduler == after_two.scheduler);
  // The resumed epoch's metrics are the uninterrupted run's.
  std::vector<std::string> resumed_csv = lines(dir + "/resumed.csv");
  REQUIRE(resumed_csv.size() == 2);
  for (int column : {0, 1, 2, 3, 4}) REQUIRE(split(resumed_csv[1])[column] == split(csv[2])[column]);

  // Resuming with other batches would not continue the same run.
  Result other_batch =
      train_mnist("--epochs 3 --batch-size 16 --metrics-csv " + dir + "/other.csv --resume " + dir + "/full-2.ckpt");
  REQUIRE(other_batch.status == 1);
  REQUIRE_THAT(other_batch.output, Contains("saved with batch_size 32, this run has 16"));
}

TEST_CASE("train_mnist: the MLP trains too") {
  std::string dir = scratch_dir("train_mnist_mlp");
  Result run = train_mnist("--model mlp --epochs 1 --no-plot --metrics-csv " + dir + "/m.csv");
  REQUIRE(run.status == 0);
  REQUIRE_THAT(run.output, Contains("mlp (235146 parameters)"));
  REQUIRE(lines(dir + "/m.csv").size() == 2);
  REQUIRE(checkpoint::testing::list_dir(dir) == std::vector<std::string>{"m.csv"});  // --no-plot: no PNG
}

TEST_CASE("train_mnist --device sim: trains on the simulated device with the CPU's numbers") {
  std::string dir = scratch_dir("train_mnist_sim");
  Result sim = train_mnist("--device sim --epochs 1 --no-plot --metrics-csv " + dir + "/sim.csv");
  REQUIRE(sim.status == 0);
  REQUIRE_THAT(sim.output, Contains("lenet (61706 parameters) on sim:0"));
  Result cpu = train_mnist("--epochs 1 --no-plot --metrics-csv " + dir + "/cpu.csv");
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

TEST_CASE("train_mnist: bad flags and missing data fail with a message") {
  std::string dir = scratch_dir("train_mnist_errors");
  Result bad_model = train_mnist("--model resnet");
  REQUIRE(bad_model.status != 0);
  REQUIRE_THAT(bad_model.output, Contains("--model"));
  Result bad_device = train_mnist("--device tpu");
  REQUIRE(bad_device.status != 0);
  REQUIRE_THAT(bad_device.output, Contains("--device") && Contains("invalid device string 'tpu'"));

  Result no_data = train_mnist("--data-dir " + dir + "/nowhere --metrics-csv " + dir + "/x.csv");
  REQUIRE(no_data.status == 1);
  REQUIRE_THAT(no_data.output, Contains(dir + "/nowhere"));
}
