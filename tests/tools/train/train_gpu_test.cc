// train --device cuda on a few hundred Fashion-MNIST images: it trains LeNet-5 on the
// GPU for one epoch and evaluates, end to end (a smoke test; the CPU test checks the numbers).
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

using Catch::Matchers::Contains;

TEST_CASE("train --device cuda trains and evaluates on the GPU", "[gpu]") {
  const std::string command = "tools/train/train --data-dir external/fashion_mnist --train-limit 256 --test-limit 200 "
                              "--device cuda --batch-size 32 --log-interval 4 --model lenet --epochs 1 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  INFO("$ " << command << "\n" << output);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK_THAT(output, Contains("lenet (61706 parameters) on cuda:0"));
  CHECK_THAT(output, Contains("epoch 1/1 batch 4/8"));
  CHECK_THAT(output, Contains("epoch 1/1: train loss"));
}
