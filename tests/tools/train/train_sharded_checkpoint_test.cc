// train --shard zero2 and --shard full with --checkpoint-format sharded under the launcher on 3
// ranks (uneven shards): every checkpoint is a directory where each rank wrote its own shards; a
// run resumed from one in mid-epoch continues bit for bit, --resume auto finds the newest; a
// --shard none run resumes from one too (reading it whole); the flag's misuses are refused by
// name. Resuming on other world sizes: train_reshard_resume_test.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/launch_train.h"
#include "tools/train/train_options.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The model and optimizer tensors of two checkpoints of the same step agree within `tolerance`.
void require_close(const checkpoint::Checkpoint& a, const checkpoint::Checkpoint& b, double tolerance) {
  REQUIRE(a.progress.step == b.progress.step);
  REQUIRE(a.model.keys() == b.model.keys());
  for (const auto& [name, tensor] : b.model) {
    INFO(a.path << ": " << name);
    CHECK(max_abs_difference(a.model[name], tensor) <= tolerance);
  }
  REQUIRE(a.optimizer.tensors.size() == b.optimizer.tensors.size());
  for (const auto& [name, tensor] : b.optimizer.tensors) {
    INFO(a.path << ": " << name);
    CHECK(max_abs_difference(a.optimizer.tensors.at(name), tensor) <= tolerance);
  }
  CHECK(a.optimizer.param_groups == b.optimizer.param_groups);
}

}  // namespace

TEST_CASE("train --shard zero2 and full, --checkpoint-format sharded: each rank saves its shards; resumes bit for bit",
          "[distributed][train][zero2][fsdp][checkpoint]") {
  const std::string shard = GENERATE(as<std::string>{}, "zero2", "full");
  INFO("--shard " << shard);
  const std::string dir = scratch_dir("train_sharded_checkpoint_" + shard);
  const std::vector<std::string> args{
      "--epochs",           "2", "--batch-size", "48", "--shard", shard, "--checkpoint-format", "sharded",
      "--checkpoint-every", "3"};
  RunResult r = launch_train(3, with(args, {"--metrics-csv", dir + "/z.csv", "--save", dir + "/z-{step}"}));
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("saved the sharded checkpoint " + dir + "/z-00000003 (step 3, 3 ranks)"));
  // 6 steps an epoch: 3, 6 (the epoch's), 9, 12.
  checkpoint::ShardedReader saved(dir + "/z-00000012");
  CHECK(saved.index().world_size == 3);
  const checkpoint::IndexEntry* conv = saved.find("conv1.weight");
  REQUIRE(conv != nullptr);
  CHECK(conv->shards.size() == 3);  // 6 rows: 2 a rank
  CHECK(saved.find("optimizer/state.0.momentum_buffer") != nullptr);
  const checkpoint::Checkpoint end = checkpoint::load_sharded_checkpoint(dir + "/z-00000012");

  RunResult resumed = launch_train(
      3, with(args, {"--metrics-csv", dir + "/r.csv", "--resume", dir + "/z-00000003", "--save", dir + "/r-{step}"}));
  INFO(resumed.out);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + dir + "/z-00000003: epoch 1, batch 3, step 3"));
  require_close(checkpoint::load_sharded_checkpoint(dir + "/r-00000012"), end, 0.0);

  // --resume auto finds the newest directory whose index is written: the last epoch's, nothing left to train.
  RunResult automatic =
      launch_train(3, with(args, {"--metrics-csv", dir + "/a.csv", "--resume", "auto", "--save", dir + "/z-{step}"}));
  INFO(automatic.out);
  REQUIRE(automatic.status == 0);
  CHECK_THAT(automatic.out, Contains("resumed from " + dir + "/z-00000012: epoch 3, batch 0, step 12"));

  // A run without sharding reads the whole checkpoint.
  RunResult unsharded = launch_train(3, {"--epochs", "2", "--batch-size", "48", "--metrics-csv", dir + "/n.csv",
                                         "--resume", dir + "/z-00000006", "--save", dir + "/n.ckpt"});
  INFO(unsharded.out);
  REQUIRE(unsharded.status == 0);
  require_close(checkpoint::load_checkpoint(dir + "/n.ckpt"), end, 1e-5);
}

TEST_CASE("train --checkpoint-format sharded: other shard modes and --keep-checkpoints are refused by name",
          "[train][checkpoint]") {
  train::TrainOptions options;
  options.checkpoint_format = "sharded";
  options.save = "ckpt-{step}";
  options.shard = "zero1";
  CHECK_THROWS_WITH(train::check_train_options(options),
                    Contains("--checkpoint-format sharded saves each rank's shards of a --shard zero2 or full run; "
                             "this run is --shard zero1"));
  options.shard = "full";
  CHECK_NOTHROW(train::check_train_options(options));
  options.shard = "zero2";
  CHECK_NOTHROW(train::check_train_options(options));
  options.keep_checkpoints = 2;
  CHECK_THROWS_WITH(train::check_train_options(options), Contains("--keep-checkpoints") && Contains("directory"));
}
