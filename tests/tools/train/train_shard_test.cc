// train --shard under the launcher on 2 ranks: ZeRO-1 (zero1) and ZeRO-2 (zero2) end where
// DDP (none) ends, with gradient accumulation and clipping, and their checkpoints are the
// ordinary format: a zero2 run resumed from its first epoch's checkpoint continues exactly,
// and a --shard none run resumed from it ends where the zero2 run does.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
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

// The model and optimizer tensors of two checkpoints of the same step agree within `tolerance`.
void require_close(const std::string& path, const std::string& reference, double tolerance) {
  checkpoint::Checkpoint a = checkpoint::load_checkpoint(path);
  checkpoint::Checkpoint b = checkpoint::load_checkpoint(reference);
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

}  // namespace

TEST_CASE("train --shard zero1 and zero2 on 2 ranks end where --shard none does; zero2 resumes exactly",
          "[distributed][train][zero2]") {
  const std::string dir = scratch_dir("train_shard");
  const std::vector<std::string> args{"--epochs", "2", "--accumulate", "2", "--max-grad-norm", "0.5"};
  for (const std::string shard : {"none", "zero1", "zero2"}) {
    RunResult r = launch_train(2, with(args, {"--shard", shard, "--metrics-csv", dir + "/" + shard + ".csv", "--save",
                                              dir + "/" + shard + "-{epoch}.ckpt"}));
    INFO(r.out);
    REQUIRE(r.status == 0);
    if (shard != "none") CHECK_THAT(r.out, Contains("--shard " + shard));
  }
  require_close(dir + "/zero1-2.ckpt", dir + "/none-2.ckpt", 1e-5);
  require_close(dir + "/zero2-2.ckpt", dir + "/none-2.ckpt", 1e-5);

  RunResult resumed = launch_train(2, with(args, {"--shard", "zero2", "--metrics-csv", dir + "/resumed.csv", "--resume",
                                                  dir + "/zero2-1.ckpt", "--save", dir + "/resumed.ckpt"}));
  INFO(resumed.out);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + dir + "/zero2-1.ckpt: epoch 2, batch 0, step 8"));
  require_close(dir + "/resumed.ckpt", dir + "/zero2-2.ckpt", 0.0);

  // The same file continues without sharding.
  RunResult unsharded = launch_train(2, with(args, {"--metrics-csv", dir + "/unsharded.csv", "--resume",
                                                    dir + "/zero2-1.ckpt", "--save", dir + "/unsharded.ckpt"}));
  INFO(unsharded.out);
  REQUIRE(unsharded.status == 0);
  require_close(dir + "/unsharded.ckpt", dir + "/zero2-2.ckpt", 1e-5);
}
