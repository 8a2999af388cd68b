// train --model gpt --dp --tp --pp under the launcher: (2, 2, 2) on 8 processes with each
// pipeline schedule, (2, 1, 2) with --shard zero1, (1, 2, 2) with zb-h1 and (1, 2, 2) with
// --max-grad-norm on 4, log
// the losses of the one-process
// run (each rank draws one process's batches), up to float32 rounding: every step's train loss
// and the held-out bits per byte within 2e-4. A checkpoint that (2, 2, 2) saves after its first
// epoch resumes on (1, 1, 1), (1, 2, 1) and (2, 1, 2) and each ends where the uninterrupted run
// ends (every model and optimizer tensor within 1e-5: float32, summed in other orders). A world
// size that is not dp x tp x pp is refused, naming the three and the world size.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tensor/tensor.h"
#include "tests/scratch_files.h"
#include "tests/tools/launch/run_launcher.h"

namespace brisk::testing {
namespace {

constexpr double kTolerance = 2e-4;  // float32: the layouts sum in other orders

std::vector<std::string> gpt_command(const std::string& text, const std::vector<std::string>& more) {
  std::vector<std::string> command{"tools/train/train",
                                   "--model",
                                   "gpt",
                                   "--device",
                                   "cpu",
                                   "--gpt-size",
                                   "tiny",
                                   "--block-size",
                                   "32",
                                   "--data-file",
                                   text,
                                   "--batch-size",
                                   "8",
                                   "--steps-per-epoch",
                                   "4",
                                   "--epochs",
                                   "2",
                                   "--log-interval",
                                   "1",
                                   "--test-limit",
                                   "8",
                                   "--lr",
                                   "3e-3",
                                   "--threads",
                                   "1"};
  command.insert(command.end(), more.begin(), more.end());
  return command;
}

RunResult launch_gpt(int nproc, const std::string& text, const std::vector<std::string>& more) {
  std::vector<std::string> argv{"--nproc-per-node", std::to_string(nproc)};
  for (const std::string& arg : gpt_command(text, more)) argv.push_back(arg);
  RunOptions options;
  options.timeout = std::chrono::seconds(300);
  RunResult r = run_launcher(argv, options);
  r.out += r.err;
  return r;
}

// The losses the log reports, in order: each step's train loss and each epoch's held-out loss.
std::vector<double> logged_losses(const std::string& log) {
  std::vector<double> losses;
  const std::regex loss(R"((train|held-out) loss ([0-9.]+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), loss); it != std::sregex_iterator(); ++it) {
    losses.push_back(std::stod((*it)[2]));
  }
  return losses;
}

TEST_CASE("train --model gpt on (dp, tp, pp) layouts logs the one-process run's losses") {
  const std::string dir = scratch_dir("train_gpt_parallel");
  std::string text;
  for (int i = 0; text.size() < 20000; ++i)
    text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
  const std::string text_path = dir + "/text.txt";
  write_bytes(text_path, std::vector<uint8_t>(text.begin(), text.end()));

  // The one-process run's losses, with `flags`.
  auto one_process_losses = [&](const std::vector<std::string>& flags) {
    RunOptions options;
    options.timeout = std::chrono::seconds(120);
    RunResult one = run_process(gpt_command(text_path, flags), options);
    one.out += one.err;
    INFO(one.out);
    REQUIRE(one.status == 0);
    const std::vector<double> losses = logged_losses(one.out);
    REQUIRE(losses.size() == 2 * (4 + 1 + 1));  // per epoch: 4 steps, the epoch's train and held-out losses
    return losses;
  };
  const std::vector<double> plain = one_process_losses({});
  const std::vector<std::string> clip{"--max-grad-norm", "0.2"};
  const std::vector<double> clipped = one_process_losses(clip);

  struct Layout {
    int nproc;
    std::vector<std::string> flags;
    bool clip = false;
  };
  const std::vector<Layout> layouts{
      {8, {"--dp", "2", "--tp", "2", "--pp", "2", "--pp-schedule", "gpipe"}},
      {8, {"--dp", "2", "--tp", "2", "--pp", "2", "--pp-schedule", "1f1b", "--microbatches", "4"}},
      {8, {"--dp", "2", "--tp", "2", "--pp", "2", "--pp-schedule", "interleaved"}},
      {4, {"--dp", "2", "--tp", "1", "--pp", "2", "--shard", "zero1"}},
      {4, {"--dp", "1", "--tp", "2", "--pp", "2", "--pp-schedule", "zb-h1", "--microbatches", "4"}},
      {4, {"--dp", "1", "--tp", "2", "--pp", "2", "--max-grad-norm", "0.2"}, true},
  };
  for (const Layout& layout : layouts) {
    const std::vector<double>& expected = layout.clip ? clipped : plain;
    RunResult r = launch_gpt(layout.nproc, text_path, layout.flags);
    INFO(output_of(r));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("on " + std::to_string(layout.nproc) + " CPU processes"));
    const std::vector<double> losses = logged_losses(r.out);
    REQUIRE(losses.size() == expected.size());
    for (size_t i = 0; i < losses.size(); ++i) {
      INFO("loss " << i << ": " << losses[i] << " vs one process's " << expected[i]);
      CHECK(std::abs(losses[i] - expected[i]) <= kTolerance);
    }
  }
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  return (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>();
}

TEST_CASE("A checkpoint of (2, 2, 2) resumes on other layouts and ends where the uninterrupted run ends") {
  const std::string dir = scratch_dir("train_gpt_parallel_checkpoints");
  std::string text;
  for (int i = 0; text.size() < 20000; ++i)
    text += "pack my box with five dozen liquor jugs " + std::to_string(i % 5) + "\n";
  const std::string text_path = dir + "/text.txt";
  write_bytes(text_path, std::vector<uint8_t>(text.begin(), text.end()));
  RunResult saved =
      launch_gpt(8, text_path, {"--dp", "2", "--tp", "2", "--pp", "2", "--save", dir + "/full_{epoch}.safetensors"});
  INFO(output_of(saved));
  REQUIRE(saved.status == 0);
  const checkpoint::Checkpoint expected = checkpoint::load_checkpoint(dir + "/full_2.safetensors");

  struct Resume {
    std::string name;
    int nproc;
    std::vector<std::string> flags;
  };
  for (const Resume& resume : std::vector<Resume>{{"1x1x1", 1, {}},
                                                  {"1x2x1", 2, {"--tp", "2"}},
                                                  {"2x1x2", 4, {"--dp", "2", "--pp", "2", "--shard", "zero1"}}}) {
    std::vector<std::string> flags = resume.flags;
    for (const std::string& more : {std::string("--resume"), dir + "/full_1.safetensors", std::string("--save"),
                                    dir + "/" + resume.name + "_{epoch}.safetensors"})
      flags.push_back(more);
    RunResult r = launch_gpt(resume.nproc, text_path, flags);
    INFO(resume.name << "\n" << output_of(r));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("resumed from"));
    const checkpoint::Checkpoint ended = checkpoint::load_checkpoint(dir + "/" + resume.name + "_2.safetensors");
    CHECK(ended.progress.step == expected.progress.step);
    REQUIRE(ended.model.keys() == expected.model.keys());
    for (const auto& [key, tensor] : expected.model) {
      INFO(key);
      CHECK(max_abs_difference(ended.model[key], tensor) <= 1e-5);
    }
    REQUIRE(ended.optimizer.tensors.size() == expected.optimizer.tensors.size());
    for (const auto& [key, tensor] : expected.optimizer.tensors) {
      INFO(key);
      REQUIRE(ended.optimizer.tensors.count(key) == 1);
      CHECK(max_abs_difference(ended.optimizer.tensors.at(key), tensor) <= 1e-5);
    }
  }
}

TEST_CASE("train --model gpt refuses a world size that is not dp x tp x pp, and a layout in one process") {
  const std::string dir = scratch_dir("train_gpt_parallel_refused");
  write_bytes(dir + "/text.txt", std::vector<uint8_t>(4000, 'a'));
  RunResult r = launch_gpt(2, dir + "/text.txt", {"--dp", "2", "--tp", "2"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK_THAT(r.out, Catch::Contains("--dp 2 x --tp 2 x --pp 1 is 4 ranks, but the job has 2 processes (world size 2)"));
  RunResult one = run_process(gpt_command(dir + "/text.txt", {"--pp", "2"}));
  one.out += one.err;
  INFO(one.out);
  CHECK(one.status != 0);
  CHECK_THAT(one.out, Catch::Contains("--dp 1 --tp 1 --pp 2 lay out 2 processes; this run is one process"));
}

}  // namespace
}  // namespace brisk::testing
