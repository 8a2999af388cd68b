// train --model gpt: the tiny preset trained a few steps on a small text file learns it (the
// held-out loss falls well below ln 256 nats, 8 bits, per byte), saves a checkpoint, and
// --sample continues a prompt from it, the same text for the same seed; a run resumed from a
// checkpoint ends as the uninterrupted one.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <regex>
#include <string>

#include "checkpoint/checkpoint.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/run_train.h"

namespace brisk::testing {
namespace {

struct Run {
  int status;
  std::string out;  // stdout only (the samples), or stdout and stderr (`with_log`)
};

Run run_train_gpt(const std::string& args, bool with_log) {
  const std::string command =
      "tools/train/train --model gpt --device cpu " + args + (with_log ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  Run run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  UNSCOPED_INFO("$ " << command << "\n" << run.out);
  return run;
}

TEST_CASE("train --model gpt learns a small text, reports bits per byte, saves, and samples from the checkpoint") {
  const std::string dir = scratch_dir("train_gpt");
  std::string text;
  for (int i = 0; text.size() < 20000; ++i)
    text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
  write_bytes(dir + "/text.txt", std::vector<uint8_t>(text.begin(), text.end()));

  const std::string checkpoint = dir + "/gpt.safetensors";
  Run trained = run_train_gpt("--gpt-size tiny --block-size 32 --data-file " + dir +
                                  "/text.txt --batch-size 16 --steps-per-epoch 30 --epochs 2 --log-interval 10 "
                                  "--test-limit 16 --lr 3e-3 --save " +
                                  checkpoint,
                              /*with_log=*/true);
  REQUIRE(trained.status == 0);
  CHECK_THAT(trained.out, Catch::Contains("gpt tiny (118528 parameters"));  // 32 positions: --block-size 32
  std::smatch last;
  const std::regex epoch_line(
      R"(epoch 2/2: train loss [0-9.]+ \([0-9.]+ bits per byte\), held-out loss ([0-9.]+) \(([0-9.]+) bits per byte\))");
  REQUIRE(std::regex_search(trained.out, last, epoch_line));
  const double held_out = std::stod(last[1]), bits = std::stod(last[2]);
  CHECK(bits == Approx(held_out / std::log(2.0)).epsilon(0.01));
  CHECK(held_out < 3.0);  // from ln 256 = 5.55 at initialization

  const std::string sample = "--resume " + checkpoint + " --sample 40 --prompt 'the quick' --top-k 5 --seed 4";
  Run first = run_train_gpt(sample, /*with_log=*/false);
  REQUIRE(first.status == 0);
  CHECK(first.out.rfind("the quick", 0) == 0);
  CHECK(first.out.size() == std::string("the quick").size() + 40 + 1);  // and a newline
  CHECK(run_train_gpt(sample, false).out == first.out);

  Run refused = run_train_gpt("--sample 10", /*with_log=*/true);
  CHECK(refused.status != 0);
  CHECK_THAT(refused.out, Catch::Contains("--sample prints text sampled from a checkpoint: give it with --resume"));
  Run image_flags = run_train_gpt("--amp bf16 --label-smoothing 0.1 --data-file " + dir + "/text.txt", true);
  CHECK(image_flags.status != 0);
  CHECK_THAT(image_flags.out, Catch::Contains("--model gpt does not train with --amp, --label-smoothing"));
}

TEST_CASE("train --model gpt resumed from its first epoch's checkpoint ends bit for bit as the run never stopped") {
  const std::string dir = scratch_dir("train_gpt_resume");
  std::string text;
  for (int i = 0; text.size() < 5000; ++i) text += "lorem ipsum " + std::to_string(i) + " dolor\n";
  write_bytes(dir + "/text.txt", std::vector<uint8_t>(text.begin(), text.end()));
  const std::string common =
      "--gpt-size tiny --block-size 16 --data-file " + dir +
      "/text.txt --batch-size 4 --steps-per-epoch 3 --test-limit 4 --seed 9 --lr-schedule constant ";
  REQUIRE(run_train_gpt(common + "--epochs 2 --save " + dir + "/straight.safetensors", true).status == 0);
  REQUIRE(run_train_gpt(common + "--epochs 1 --save " + dir + "/first.safetensors", true).status == 0);
  REQUIRE(run_train_gpt(
              common + "--epochs 2 --resume " + dir + "/first.safetensors --save " + dir + "/resumed.safetensors", true)
              .status == 0);
  checkpoint::Checkpoint straight = checkpoint::load_checkpoint(dir + "/straight.safetensors");
  const checkpoint::Checkpoint resumed = checkpoint::load_checkpoint(dir + "/resumed.safetensors");
  CHECK(resumed.progress.step == 6);
  require_same_state(straight, resumed);
}

}  // namespace
}  // namespace brisk::testing
