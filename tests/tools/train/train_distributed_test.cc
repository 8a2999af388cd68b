// Runs train through the launcher on 256 Fashion-MNIST images: two ranks train with
// DDP over Gloo, only rank 0 logs and writes the CSV and the checkpoints, the parameters end
// where one process training the same global batches ends, and a distributed run resumed
// from its first epoch's checkpoint ends exactly where the uninterrupted run does; the same
// on the simulated device (each rank on sim:LOCAL_RANK, its group on it), bit for bit the
// CPU run; the MLP on a synthetic CIFAR-format set with gradient accumulation, trained and
// resumed exactly; backends that cannot take the device's tensors are refused at startup.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/launch_train.h"
#include "tools/data/synthetic_cifar10.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

TEST_CASE("train distributed: 2 ranks train like one process with the same global batch; rank 0 writes",
          "[distributed][train]") {
  std::string dir = scratch_dir("train_distributed");
  RunResult two =
      launch_train(2, {"--epochs", "2", "--metrics-csv", dir + "/two.csv", "--save", dir + "/two-{epoch}.ckpt"});
  REQUIRE(two.status == 0);
  // Rank 0 speaks for the job; rank 1 trains silently.
  CHECK_THAT(two.out, Contains("[rank 0] ") && Contains("distributed: 2 processes over gloo, 16 examples per process"));
  CHECK(lines_starting_with(two.out, "[rank 1] ").empty());
  CHECK(count(two.out, "epoch 2/2: train loss") == 1);
  CHECK(count(two.out, "saved " + dir + "/two-") == 2);
  // One row per epoch, of metrics summed over both ranks' shares (8 steps of 2 x 16).
  std::vector<std::string> csv = lines(dir + "/two.csv");
  REQUIRE(csv.size() == 3);

  // The reference: one process, the same global batch of 32, through the same
  // DistributedSampler order (world size 1, forced by --dist-backend).
  RunResult one = launch_train(1, {"--epochs", "2", "--dist-backend", "gloo", "--metrics-csv", dir + "/one.csv",
                                   "--save", dir + "/one-{epoch}.ckpt"});
  REQUIRE(one.status == 0);
  CHECK_THAT(one.out, Contains("distributed: 1 processes over gloo, 32 examples per process"));

  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/two-2.ckpt");
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(dir + "/one-2.ckpt");
  REQUIRE(a.progress.step == 16);
  REQUIRE(b.progress.step == 16);
  REQUIRE(a.metadata.at("world_size") == "2 (distributed)");
  // The plain model's names, as a single-process checkpoint has them (no "module." prefix).
  REQUIRE(a.model.keys() == b.model.keys());
  const std::vector<std::string> names = a.model.keys();
  REQUIRE(std::count(names.begin(), names.end(), "conv1.weight") == 1);
  for (const auto& [name, tensor] : b.model) {
    INFO(name);
    CHECK(max_abs_difference(a.model[name], tensor) < 1e-5);
  }
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(name);
    CHECK(max_abs_difference(a.optimizer.tensors.at(name), tensor) < 1e-4);
  }
  // The same examples, counted once: the epochs' metrics agree.
  std::vector<std::string> one_csv = lines(dir + "/one.csv");
  REQUIRE(one_csv.size() == 3);
  for (int epoch : {1, 2}) {
    std::vector<std::string> x = split(csv[epoch]), y = split(one_csv[epoch]);
    REQUIRE(x.size() == 7);
    REQUIRE(y.size() == 7);
    for (int column : {1, 2, 3, 4}) CHECK(std::stod(x[column]) == Approx(std::stod(y[column])).margin(1e-4));
  }
}

TEST_CASE("train distributed: resuming every rank from one checkpoint continues the run exactly",
          "[distributed][train]") {
  std::string dir = scratch_dir("train_distributed_resume");
  RunResult full =
      launch_train(2, {"--epochs", "2", "--metrics-csv", dir + "/full.csv", "--save", dir + "/full-{epoch}.ckpt"});
  REQUIRE(full.status == 0);
  RunResult resumed = launch_train(2, {"--epochs", "2", "--metrics-csv", dir + "/resumed.csv", "--resume",
                                       dir + "/full-1.ckpt", "--save", dir + "/resumed.ckpt"});
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + dir + "/full-1.ckpt: epoch 2, batch 0, step 8"));
  // Appended to by rank 0 alone: one header and the one epoch trained.
  std::vector<std::string> csv = lines(dir + "/resumed.csv");
  REQUIRE(csv.size() == 2);
  std::vector<std::string> full_csv = lines(dir + "/full.csv");
  REQUIRE(full_csv.size() == 3);
  for (int column : {0, 1, 2, 3, 4}) CHECK(split(csv[1])[column] == split(full_csv[2])[column]);

  checkpoint::Checkpoint whole = checkpoint::load_checkpoint(dir + "/full-2.ckpt");
  checkpoint::Checkpoint again = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  REQUIRE(again.progress.step == 16);
  for (const auto& [name, tensor] : whole.model) {
    INFO(name);
    CHECK(brisk::testing::same_bits(again.model[name], tensor));
  }

  // A single-process run cannot continue a distributed one exactly.
  RunResult single =
      launch_train(1, {"--epochs", "3", "--metrics-csv", dir + "/single.csv", "--resume", dir + "/full-2.ckpt"});
  CHECK(single.status == 1);
  CHECK_THAT(single.out, Contains("saved with world_size 2 (distributed), this run has 1"));
}

TEST_CASE("train distributed on CIFAR-format data with accumulation: 2 ranks learn; a resumed run ends where the "
          "uninterrupted one does",
          "[distributed][train][cifar]") {
  std::string dir = scratch_dir("train_distributed_cifar");
  tools::SyntheticCifar10Options synthetic;
  synthetic.train_size = 192;
  synthetic.test_size = 64;
  tools::write_synthetic_cifar10(dir + "/data", synthetic);
  const std::vector<std::string> cifar{
      "--dataset", "cifar10",         "--data-dir", dir + "/data",   "--model", "mlp",        "--epochs",
      "2",         "--accumulate",    "2",          "--optimizer",   "sgd",     "--nesterov", "--weight-decay",
      "5e-4",      "--max-grad-norm", "2",          "--lr-schedule", "onecycle"};
  auto with = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = cifar;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  RunResult two = launch_train(2, with({"--metrics-csv", dir + "/two.csv", "--save", dir + "/two-{epoch}.ckpt"}));
  REQUIRE(two.status == 0);
  CHECK_THAT(two.out, Contains("mlp (820874 parameters) on cpu") &&
                          Contains("distributed: 2 processes over gloo, 16 examples per process and step") &&
                          Contains("batch 32 in 2 micro-batches, 6 steps an epoch"));
  // (Not compared with one process: the augmentations are drawn per position in a rank's shard.
  // tests/tools/train/distributed_run_test checks that accumulation under DDP equals one process.)
  std::vector<std::string> csv = lines(dir + "/two.csv");
  REQUIRE(csv.size() == 3);
  CHECK(std::stod(split(csv[2])[4]) > 0.5);  // test accuracy (chance: 0.1)
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/two-2.ckpt");
  REQUIRE(a.progress.step == 12);
  REQUIRE(a.metadata.at("accumulate") == "2");
  REQUIRE(a.metadata.at("world_size") == "2 (distributed)");

  RunResult resumed = launch_train(2, with({"--metrics-csv", dir + "/resumed.csv", "--resume", dir + "/two-1.ckpt",
                                            "--save", dir + "/resumed.ckpt"}));
  REQUIRE(resumed.status == 0);
  checkpoint::Checkpoint again = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  for (const auto& [name, tensor] : a.model) {
    INFO(name);
    CHECK(brisk::testing::same_bits(again.model[name], tensor));
  }
}

TEST_CASE("train distributed with --sync-bn: a BatchNorm model's layers normalize over both ranks; the checkpoint "
          "says so and a resume without the flag is refused",
          "[distributed][train][cifar]") {
  // That DDP with SyncBatchNorm equals one process on the global batch is
  // tests/distributed/nn/sync_batchnorm_multiprocess_test's; here, that the program converts.
  std::string dir = scratch_dir("train_distributed_sync_bn");
  tools::SyntheticCifar10Options synthetic;
  synthetic.train_size = 64;
  synthetic.test_size = 32;
  tools::write_synthetic_cifar10(dir + "/data", synthetic);
  const std::vector<std::string> resnet{"--dataset",    "cifar10",  "--data-dir",    dir + "/data",
                                        "--model",      "resnet20", "--epochs",      "1",
                                        "--batch-size", "32",       "--metrics-csv", dir + "/x.csv"};
  std::vector<std::string> synced = resnet;
  synced.insert(synced.end(), {"--sync-bn", "--save", dir + "/synced.ckpt"});
  RunResult two = launch_train(2, synced);
  REQUIRE(two.status == 0);
  CHECK_THAT(two.out, Contains("--sync-bn: 19 BatchNorm layers normalize over all 2 processes"));
  checkpoint::Checkpoint saved = checkpoint::load_checkpoint(dir + "/synced.ckpt");
  CHECK(saved.metadata.at("sync_bn") == "on");
  // The layers keep BatchNorm's names, so the checkpoint loads into the plain model too.
  CHECK(saved.model.contains("layer1.0.bn1.running_mean"));

  std::vector<std::string> unsynced = resnet;
  unsynced.insert(unsynced.end(), {"--epochs", "2", "--resume", dir + "/synced.ckpt"});
  RunResult resumed = launch_train(2, unsynced);
  CHECK(resumed.status == 1);
  CHECK_THAT(resumed.out, Contains("sync_bn"));
}

TEST_CASE("train distributed: a global batch that does not split over the ranks is an error naming both",
          "[distributed][train]") {
  std::string dir = scratch_dir("train_distributed_batch");
  RunResult r = launch_train(2, {"--batch-size", "33", "--metrics-csv", dir + "/x.csv"});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("--batch-size 33 (the global batch) does not split evenly over 2 processes"));
  CHECK_FALSE(std::filesystem::exists(dir + "/x.csv"));
}

TEST_CASE("train distributed on the simulated device: 2 ranks over Gloo train exactly as on the CPU; "
          "save and resume",
          "[distributed][train][sim]") {
  std::string dir = scratch_dir("train_distributed_sim");
  const std::vector<std::string> on_sim{"--device", "sim", "--dist-backend", "gloo", "--epochs", "2"};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  RunResult sim =
      launch_train(2, with(on_sim, {"--metrics-csv", dir + "/sim.csv", "--save", dir + "/sim-{epoch}.ckpt"}));
  REQUIRE(sim.status == 0);
  CHECK_THAT(sim.out, Contains("lenet (61706 parameters) on sim:0") &&
                          Contains("distributed: 2 processes over gloo, 16 examples per process"));
  RunResult cpu =
      launch_train(2, {"--epochs", "2", "--metrics-csv", dir + "/cpu.csv", "--save", dir + "/cpu-{epoch}.ckpt"});
  REQUIRE(cpu.status == 0);

  // The simulated device computes with the CPU's kernels and Gloo adds the same numbers: the
  // same seed gives the same run, to the last bit.
  std::vector<std::string> sim_csv = lines(dir + "/sim.csv"), cpu_csv = lines(dir + "/cpu.csv");
  REQUIRE(sim_csv.size() == 3);
  REQUIRE(cpu_csv.size() == 3);
  for (int epoch : {1, 2}) {
    for (int column : {0, 1, 2, 3, 4}) CHECK(split(sim_csv[epoch])[column] == split(cpu_csv[epoch])[column]);
  }
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/sim-2.ckpt");
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(dir + "/cpu-2.ckpt");
  REQUIRE(a.progress.step == 16);
  REQUIRE(a.model.keys() == b.model.keys());
  for (const auto& [name, tensor] : b.model) {
    INFO(name);
    CHECK(brisk::testing::same_bits(a.model[name], tensor));
  }
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(name);
    CHECK(brisk::testing::same_bits(a.optimizer.tensors.at(name), tensor));
  }

  // Resumed on the device from the first epoch, every rank ends where the uninterrupted run did.
  RunResult resumed = launch_train(2, with(on_sim, {"--metrics-csv", dir + "/resumed.csv", "--resume",
                                                    dir + "/sim-1.ckpt", "--save", dir + "/resumed.ckpt"}));
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + dir + "/sim-1.ckpt: epoch 2, batch 0, step 8"));
  std::vector<std::string> resumed_csv = lines(dir + "/resumed.csv");
  REQUIRE(resumed_csv.size() == 2);
  for (int column : {0, 1, 2, 3, 4}) CHECK(split(resumed_csv[1])[column] == split(sim_csv[2])[column]);
  checkpoint::Checkpoint again = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  REQUIRE(again.progress.step == 16);
  for (const auto& [name, tensor] : a.model) {
    INFO(name);
    CHECK(brisk::testing::same_bits(again.model[name], tensor));
  }
}

TEST_CASE("train distributed: a backend that cannot take the device's tensors is refused at startup, naming "
          "both (init_distributed's backend and device: --dist-backend, --device)",
          "[distributed][train]") {
  std::string dir = scratch_dir("train_distributed_refused");
  for (const std::string device : {"sim", "cpu"}) {
    RunResult r = launch_train(2, {"--device", device, "--dist-backend", "nccl", "--metrics-csv", dir + "/x.csv"});
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("backend nccl takes CUDA tensors only, and device " + device + " trains on"));
  }
  RunResult shared = launch_train(2, {"--device", "cuda:0", "--dist-backend", "nccl", "--metrics-csv", dir + "/x.csv"});
  CHECK(shared.status == 1);  // on a machine without a GPU, for want of cuda:0
  CHECK_THAT(shared.out, Contains("device cuda:0"));
  CHECK_FALSE(std::filesystem::exists(dir + "/x.csv"));
}
