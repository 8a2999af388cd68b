// docs/guide.md's program (examples/guide/train_cifar.cc) run as a user runs it, on a small
// synthetic CIFAR-format set: it learns, a run resumed from its first epoch's checkpoint ends
// bit for bit where the uninterrupted one does, a resumption with a longer schedule is
// refused naming it, and under the launcher 2 processes train with rank 0 reporting.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/scratch_files.h"
#include "tests/tools/launch/run_launcher.h"
#include "tools/data/synthetic_cifar10.h"

using namespace brisk;
using Catch::Contains;

namespace {

const std::string kProgram = "examples/guide/train_cifar";

// The set once per test process, in `dir`.
std::string synthetic_set(const std::string& dir) {
  tools::SyntheticCifar10Options options;
  options.train_size = 640;
  options.test_size = 200;
  options.noise = 32;
  tools::write_synthetic_cifar10(dir, options);
  return dir;
}

testing::RunResult train(const std::string& data, const std::vector<std::string>& args) {
  std::vector<std::string> argv{kProgram, "--data", data, "--batch-size", "64"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::RunOptions options;
  options.timeout = std::chrono::seconds(240);
  testing::RunResult r = testing::run_process(argv, options);
  UNSCOPED_INFO(testing::output_of(r));
  return r;
}

double accuracy_of(const std::string& out, int epoch, int epochs) {
  const std::string line = "epoch " + std::to_string(epoch) + "/" + std::to_string(epochs) + ":";
  const size_t at = out.find(line);
  REQUIRE(at != std::string::npos);
  const size_t value = out.find("test accuracy ", at);
  return std::stod(out.substr(value + 14));
}

}  // namespace

TEST_CASE("guide program: learns, resumes exactly, and refuses a checkpoint of another schedule") {
  const std::string dir = testing::scratch_dir("guide_train_cifar");
  const std::string data = synthetic_set(dir + "/data");

  testing::RunResult whole = train(data, {"--epochs", "2", "--save", dir + "/whole"});
  REQUIRE(whole.status == 0);
  CHECK(accuracy_of(whole.out, 2, 2) > 50.0);  // 10 classes: chance is 10%

  testing::RunResult resumed =
      train(data, {"--epochs", "2", "--resume", dir + "/whole/epoch-1.ckpt", "--save", dir + "/resumed"});
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, !Contains("epoch 1/2"));
  CHECK(accuracy_of(resumed.out, 2, 2) == accuracy_of(whole.out, 2, 2));
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(dir + "/whole/epoch-2.ckpt");
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(dir + "/resumed/epoch-2.ckpt");
  for (const auto& [name, tensor] : a.model) {
    INFO(name);
    CHECK(b.model[name].to_vector<float>() == tensor.to_vector<float>());
  }

  testing::RunResult longer = train(data, {"--epochs", "3", "--resume", dir + "/whole/epoch-1.ckpt"});
  CHECK(longer.status != 0);
  CHECK_THAT(longer.out + longer.err, Contains("LR scheduler CosineAnnealingLR: T_max is 20 in the checkpoint, 30 in "
                                               "this run"));
}

TEST_CASE("guide program: 2 processes under the launcher, rank 0 reporting") {
  const std::string dir = testing::scratch_dir("guide_train_cifar_launched");
  const std::string data = synthetic_set(dir + "/data");
  testing::RunOptions options;
  options.timeout = std::chrono::seconds(240);
  testing::RunResult r = testing::run_launcher(
      {"--nproc-per-node", "2", kProgram, "--data", data, "--epochs", "1", "--batch-size", "64", "--accumulate", "2"},
      options);
  INFO(testing::output_of(r));
  REQUIRE(r.status == 0);
  CHECK(testing::count(r.out + r.err, "test accuracy") == 1);
}
