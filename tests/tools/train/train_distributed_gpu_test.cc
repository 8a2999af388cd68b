// train under the launcher on one GPU: two ranks sharing cuda:0 over Gloo (CUDA tensors
// staged through host memory) train like the same two ranks on the CPU, within float32
// rounding; and NCCL at world size 1 trains, saves and resumes on the GPU.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/launch_train.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

TEST_CASE("train: 2 ranks share one GPU over Gloo and train like the CPU", "[gpu][distributed][train]") {
  std::string dir = scratch_dir("train_gloo_gpu");
  RunResult gpu = launch_train(2, {"--device", "cuda:0", "--dist-backend", "gloo", "--epochs", "1", "--metrics-csv",
                                   dir + "/gpu.csv", "--save", dir + "/gpu.ckpt"});
  REQUIRE(gpu.status == 0);
  CHECK_THAT(gpu.out, Contains("lenet (61706 parameters) on cuda:0") &&
                          Contains("distributed: 2 processes over gloo, 16 examples per process"));
  RunResult cpu = launch_train(2, {"--epochs", "1", "--metrics-csv", dir + "/cpu.csv", "--save", dir + "/cpu.ckpt"});
  REQUIRE(cpu.status == 0);
  std::vector<std::string> gpu_csv = lines(dir + "/gpu.csv"), cpu_csv = lines(dir + "/cpu.csv");
  REQUIRE(gpu_csv.size() == 2);
  REQUIRE(cpu_csv.size() == 2);
  for (int column : {1, 2, 3, 4}) {
    CHECK(std::stod(split(gpu_csv[1])[column]) == Approx(std::stod(split(cpu_csv[1])[column])).margin(2e-3));
  }
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/gpu.ckpt");
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(dir + "/cpu.ckpt");
  for (const auto& [name, tensor] : b.model) {
    INFO(name);
    CHECK(max_abs_difference(a.model[name], tensor) < 1e-4);
  }
}

TEST_CASE("train over NCCL at world size 1: trains, saves and resumes on the GPU", "[gpu][distributed][train]") {
  std::string dir = scratch_dir("train_nccl_gpu");
  const std::vector<std::string> nccl{"--device", "cuda", "--dist-backend", "nccl", "--epochs", "2"};
  auto with = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = nccl;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  RunResult full = launch_train(1, with({"--metrics-csv", dir + "/full.csv", "--save", dir + "/full-{epoch}.ckpt"}));
  REQUIRE(full.status == 0);
  CHECK_THAT(full.out, Contains("on cuda:0") && Contains("distributed: 1 processes over nccl"));
  RunResult resumed = launch_train(1, with({"--metrics-csv", dir + "/resumed.csv", "--resume", dir + "/full-1.ckpt",
                                            "--save", dir + "/resumed.ckpt"}));
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + dir + "/full-1.ckpt: epoch 2, batch 0, step 8"));
  checkpoint::Checkpoint whole = checkpoint::load_checkpoint(dir + "/full-2.ckpt");
  checkpoint::Checkpoint again = checkpoint::load_checkpoint(dir + "/resumed.ckpt");
  REQUIRE(again.progress.step == 16);
  for (const auto& [name, tensor] : whole.model) {
    INFO(name);
    CHECK(max_abs_difference(again.model[name], tensor) < 1e-5);  // GPU reductions may order sums differently
  }
}
