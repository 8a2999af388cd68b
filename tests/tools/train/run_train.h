#pragma once
// The training program run from a test's runfiles tree, and checkpoints compared bit for bit,
// for the program's tests.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "checkpoint/checkpoint.h"
#include "tests/checkpoint/dtype_samples.h"

namespace brisk::testing {

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

// Runs the training program on the CPU on the first 256 training and 200 test Fashion-MNIST
// images, in batches of 32, logging every 4 batches, then `args` (a flag given again wins,
// e.g. --dataset cifar10 --data-dir DIR).
inline Result run_train(const std::string& args) {
  std::string command = "tools/train/train --data-dir external/fashion_mnist --train-limit 256 "
                        "--test-limit 200 --device cpu --log-interval 4 --batch-size 32 " +
                        args + " 2>&1";
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

// The weights, the optimizer's state and the scheduler's of `a` and `b` are the same, bit for bit.
inline void require_same_state(checkpoint::Checkpoint& a, const checkpoint::Checkpoint& b) {
  REQUIRE(a.model.keys() == b.model.keys());
  for (const auto& [name, tensor] : b.model) {
    INFO(name);
    REQUIRE(same_bits(a.model[name], tensor));
  }
  REQUIRE(a.optimizer.tensors.size() == b.optimizer.tensors.size());
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(name);
    REQUIRE(same_bits(a.optimizer.tensors.at(name), tensor));
  }
  REQUIRE(a.optimizer.param_groups == b.optimizer.param_groups);
  REQUIRE(a.scheduler == b.scheduler);
}

}  // namespace brisk::testing
