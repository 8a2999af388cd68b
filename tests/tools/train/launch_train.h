#pragma once
// train under the launcher, for the distributed train tests: LeNet-5 on the first
// 256 training and 200 test Fashion-MNIST images on the CPU, global batches of 32, one kernel
// thread per process (the same reduction order whatever the world size), then `args` (a flag
// given again wins, e.g. --device sim). `launcher` holds more of the launcher's own options
// (e.g. --max-restarts 2); `options` the run's environment and timeout.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tensor/tensor.h"
#include "tests/tools/launch/run_launcher.h"

namespace brisk::testing {

inline constexpr const char* kTrainProgram = "tools/train/train";
// The program built with BRISK_TRAIN_FAULT's injector (fault_injection.h), for restart_test.
inline constexpr const char* kTrainWithFaults = "tests/tools/train/train_with_faults";

// The worker's command line: `program`, the settings above, then `args`.
inline std::vector<std::string> train_command(const std::vector<std::string>& args,
                                              const std::string& program = kTrainProgram) {
  std::vector<std::string> command{program,
                                   "--data-dir",
                                   "external/fashion_mnist",
                                   "--train-limit",
                                   "256",
                                   "--test-limit",
                                   "200",
                                   "--device",
                                   "cpu",
                                   "--batch-size",
                                   "32",
                                   "--threads",
                                   "1",
                                   "--log-interval",
                                   "4",
                                   "--model",
                                   "lenet"};
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

inline RunResult launch_train(int nproc, const std::vector<std::string>& args,
                              const std::vector<std::string>& launcher = {}, const RunOptions& options = {},
                              const std::string& program = kTrainProgram) {
  std::vector<std::string> argv{"--nproc-per-node", std::to_string(nproc)};
  argv.insert(argv.end(), launcher.begin(), launcher.end());
  std::vector<std::string> command = train_command(args, program);
  argv.insert(argv.end(), command.begin(), command.end());
  RunResult r = run_launcher(argv, options);
  r.out += r.err;  // spdlog logs to stdout, the launcher to stderr: the checks look at both
  return r;
}

inline double max_abs_difference(const Tensor& a, const Tensor& b) {
  std::vector<float> x = a.contiguous().to_vector<float>();
  std::vector<float> y = b.contiguous().to_vector<float>();
  REQUIRE(x.size() == y.size());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(x[i]) - y[i]));
  return worst;
}

// The checkpoints at `path` and `reference` hold the same step and exactly the same model and
// optimizer tensors (a run another way started, against the launcher's).
inline void require_same_training_state(const std::string& path, const std::string& reference) {
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(path);
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(reference);
  REQUIRE(a.progress.step == b.progress.step);
  REQUIRE(a.model.keys() == b.model.keys());
  for (const auto& [name, tensor] : b.model) {
    INFO(name);
    CHECK(max_abs_difference(a.model[name], tensor) == 0);
  }
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(name);
    CHECK(max_abs_difference(a.optimizer.tensors.at(name), tensor) == 0);
  }
}

}  // namespace brisk::testing
