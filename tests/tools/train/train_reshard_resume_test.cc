// train --shard zero2 and --shard full with --checkpoint-format sharded, resumed on another world
// size: 4 ranks save, 2 and 3 resume, and 2 save, 1 resumes (a process group of one). The
// training set (240 examples) and the global batch (48) split evenly on 1 to 4 ranks, so every
// global batch holds the same examples; what differs is the order in which the ranks' gradients
// are summed. So a resumed run ends within float32 rounding (1e-5) of the run that never
// stopped, not bitwise; and bitwise where the state it starts from is the same bits: a resume on
// 3 ranks from the sharded directory equals one from the same state in one file (re-sharding
// on load is exact). The same world size resumes bitwise: train_sharded_checkpoint_test.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/launch_train.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The sharded checkpoints `path` and `reference` hold the same step, their model and optimizer
// tensors within `tolerance`.
void require_close(const std::string& path, const std::string& reference, double tolerance) {
  const checkpoint::Checkpoint a = checkpoint::load_sharded_checkpoint(path);
  const checkpoint::Checkpoint b = checkpoint::load_sharded_checkpoint(reference);
  REQUIRE(a.progress.step == b.progress.step);
  REQUIRE(a.model.keys() == b.model.keys());
  for (const auto& [name, tensor] : b.model) {
    INFO(path << ": " << name);
    CHECK(max_abs_difference(a.model[name], tensor) <= tolerance);
  }
  REQUIRE(a.optimizer.tensors.size() == b.optimizer.tensors.size());
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(path << ": " << name);
    CHECK(max_abs_difference(a.optimizer.tensors.at(name), tensor) <= tolerance);
  }
  CHECK(a.optimizer.param_groups == b.optimizer.param_groups);
}

int saved_world_size(const std::string& directory) { return checkpoint::ShardedReader(directory).index().world_size; }

}  // namespace

TEST_CASE("train --checkpoint-format sharded resumes on another world size: 4 ranks save, 2 and 3 resume; 2 save, "
          "1 resumes",
          "[distributed][train][zero2][fsdp][checkpoint]") {
  const std::string shard = GENERATE(as<std::string>{}, "zero2", "full");
  INFO("--shard " << shard);
  const std::string dir = scratch_dir("train_reshard_resume_" + shard);
  // 5 steps an epoch; checkpoints at steps 2, 4, 5 (the epoch's), 6, 8 and 10. AdamW, whose
  // moments are sharded as the parameters are, its step count replicated.
  const std::vector<std::string> args{
      "--epochs", "2",   "--batch-size",        "48",      "--train-limit",      "240", "--optimizer",    "adamw",
      "--shard",  shard, "--checkpoint-format", "sharded", "--checkpoint-every", "2",   "--dist-backend", "gloo"};
  auto saved = [&](const std::string& run, int step) { return dir + "/" + run + "-" + fmt::format("{:08d}", step); };
  auto train = [&](int ranks, const std::string& run, const std::vector<std::string>& more) {
    RunResult r = launch_train(
        ranks,
        with(with(args, {"--metrics-csv", dir + "/" + run + ".csv", "--save", dir + "/" + run + "-{step}"}), more));
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(saved_world_size(saved(run, 10)) == ranks);
    return r;
  };

  train(4, "four", {});
  for (int ranks : {2, 3}) {
    const std::string run = fmt::format("from4on{}", ranks);
    RunResult r = train(ranks, run, {"--resume", saved("four", 2)});
    CHECK_THAT(r.out, Contains("resumed from " + saved("four", 2) + ": epoch 1, batch 2, step 2"));
    CHECK_THAT(r.out, Contains(fmt::format("resuming a checkpoint of 4 processes on {}", ranks)));
    require_close(saved(run, 10), saved("four", 10), 1e-5);
  }

  // The state at step 2 as one ordinary file (what tools/checkpoint/consolidate writes): a run
  // on 3 ranks resumed from it is the run resumed from the 4 ranks' shards, bit for bit.
  const std::string whole = dir + "/four-2.ckpt";
  checkpoint::save_checkpoint(whole, checkpoint::load_sharded_checkpoint(saved("four", 2)));
  train(3, "whole_on3", {"--resume", whole});
  require_close(saved("whole_on3", 10), saved("from4on3", 10), 0.0);

  // 2 ranks save (the run resumed above), one resumes (a process group of one: a run without
  // one shuffles the data otherwise, and is refused).
  RunResult one = train(1, "from2on1", {"--resume", saved("from4on2", 4)});
  CHECK_THAT(one.out, Contains("resuming a checkpoint of 2 processes on 1"));
  require_close(saved("from2on1", 10), saved("from4on2", 10), 1e-5);
}

TEST_CASE("train --resume on another world size that does not split the training set evenly is refused by name",
          "[distributed][train][checkpoint]") {
  const std::string dir = scratch_dir("train_reshard_resume_refused");
  const std::vector<std::string> args{
      "--epochs",           "1", "--batch-size", "48", "--shard", "zero2", "--checkpoint-format", "sharded",
      "--checkpoint-every", "2"};
  RunResult saved = launch_train(2, with(args, {"--metrics-csv", dir + "/a.csv", "--save", dir + "/a-{step}"}));
  INFO(saved.out);
  REQUIRE(saved.status == 0);
  // 256 examples: 3 ranks would pad them to 258.
  RunResult resumed = launch_train(
      3, with(args, {"--metrics-csv", dir + "/b.csv", "--resume", dir + "/a-00000002", "--save", dir + "/b-{step}"}));
  INFO(resumed.out);
  CHECK(resumed.status == 1);
  CHECK_THAT(resumed.out, Contains("saved with world_size 2 (distributed), this run has 3 (distributed): another "
                                   "world size resumes the same global batches only when both split the 256 "
                                   "training examples evenly"));
}
