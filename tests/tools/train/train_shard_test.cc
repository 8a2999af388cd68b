// train --shard under the launcher on 2 ranks: ZeRO-1 (zero1) and ZeRO-2 (zero2) end where
// DDP (none) ends, with gradient accumulation, clipping and checkpoints within epochs, and
// their checkpoints are the ordinary format: a zero2 run resumed from its first epoch's
// checkpoint continues exactly, a --shard none run resumed from it ends where the zero2 run
// does, and a zero1 run resumed from a --shard none checkpoint ends where that run does; a
// zero2 run on the simulated device is the CPU's run bit for bit. Full sharding (--shard full) on 2
// and 3 ranks ends where --shard none does, resumes bit for bit, and --shard none resumes from it.
#include <catch2/catch.hpp>
#include <fmt/format.h>

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

TEST_CASE("train --shard zero1 and zero2 on 2 ranks end where --shard none does; their checkpoints resume",
          "[distributed][train][zero2]") {
  const std::string dir = scratch_dir("train_shard");
  // Checkpoints within epochs too (steps 3, 6, 9, ...): every rank gathers the sharded state
  // there, rank 0 writes it.
  const std::vector<std::string> args{"--epochs",        "2",   "--accumulate",       "2",
                                      "--max-grad-norm", "0.5", "--checkpoint-every", "3"};
  auto saved = [&](const std::string& run, int step) {
    return dir + "/" + run + "-" + fmt::format("{:08d}", step) + ".ckpt";
  };
  for (const std::string shard : {"none", "zero1", "zero2"}) {
    RunResult r = launch_train(2, with(args, {"--shard", shard, "--metrics-csv", dir + "/" + shard + ".csv", "--save",
                                              dir + "/" + shard + "-{step}.ckpt"}));
    INFO(r.out);
    REQUIRE(r.status == 0);
    if (shard != "none") CHECK_THAT(r.out, Contains("--shard " + shard));
  }
  for (int step : {3, 8, 16}) {
    require_close(saved("zero1", step), saved("none", step), 1e-5);
    require_close(saved("zero2", step), saved("none", step), 1e-5);
  }
  // On the simulated device (each rank on sim:LOCAL_RANK, its group there): the CPU's run, bit
  // for bit (the same kernels, Gloo adding the same numbers).
  RunResult sim = launch_train(2, with(args, {"--device", "sim", "--shard", "zero2", "--metrics-csv", dir + "/sim.csv",
                                              "--save", dir + "/sim-{step}.ckpt"}));
  INFO(sim.out);
  REQUIRE(sim.status == 0);
  CHECK_THAT(sim.out, Contains("on sim:0"));
  require_close(saved("sim", 16), saved("zero2", 16), 0.0);

  // A zero2 run resumed from its first epoch's checkpoint continues exactly.
  RunResult resumed = launch_train(2, with(args, {"--shard", "zero2", "--metrics-csv", dir + "/resumed.csv", "--resume",
                                                  saved("zero2", 8), "--save", dir + "/resumed-{step}.ckpt"}));
  INFO(resumed.out);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + saved("zero2", 8) + ": epoch 2, batch 0, step 8"));
  require_close(saved("resumed", 16), saved("zero2", 16), 0.0);

  // The files are the ordinary format: --shard none continues a zero2 run, zero1 a --shard none one.
  RunResult unsharded = launch_train(2, with(args, {"--metrics-csv", dir + "/unsharded.csv", "--resume",
                                                    saved("zero2", 8), "--save", dir + "/unsharded-{step}.ckpt"}));
  INFO(unsharded.out);
  REQUIRE(unsharded.status == 0);
  require_close(saved("unsharded", 16), saved("zero2", 16), 1e-5);
  RunResult zero1 =
      launch_train(2, with(args, {"--shard", "zero1", "--metrics-csv", dir + "/zero1-resumed.csv", "--resume",
                                  saved("none", 8), "--save", dir + "/zero1-resumed-{step}.ckpt"}));
  INFO(zero1.out);
  REQUIRE(zero1.status == 0);
  require_close(saved("zero1-resumed", 16), saved("none", 16), 1e-5);
}

TEST_CASE("train --shard full on 2 and 3 ranks ends where --shard none does; its checkpoints resume",
          "[distributed][train][fsdp]") {
  const std::string dir = scratch_dir("train_shard_full");
  // Gradient accumulation (set_requires_gradient_sync), clipping from the shards, and
  // checkpoints within epochs (the parameters and the optimizer state gathered onto rank 0); a
  // global batch that 2 and 3 ranks x 2 micro-batches split (6 steps an epoch).
  const std::vector<std::string> args{"--epochs",         "2",   "--accumulate",       "2", "--batch-size", "48",
                                      "--max-grad-norm",  "0.5", "--checkpoint-every", "3"};
  auto saved = [&](const std::string& run, int step) {
    return dir + "/" + run + "-" + fmt::format("{:08d}", step) + ".ckpt";
  };
  // 3 ranks make the shards uneven (the MLP's rows do not split in three equal parts).
  for (int ranks : {2, 3}) {
    for (const std::string shard : {"none", "full"}) {
      const std::string run = fmt::format("{}-{}", shard, ranks);
      RunResult r = launch_train(ranks, with(args, {"--shard", shard, "--metrics-csv", dir + "/" + run + ".csv",
                                                    "--save", dir + "/" + run + "-{step}.ckpt"}));
      INFO(r.out);
      REQUIRE(r.status == 0);
      if (shard == "full") CHECK_THAT(r.out, Contains("--shard full"));
    }
    for (int step : {3, 6, 12}) {
      INFO(ranks << " ranks, step " << step);
      require_close(saved(fmt::format("full-{}", ranks), step), saved(fmt::format("none-{}", ranks), step), 1e-5);
    }
  }

  // A full run resumed from its first epoch's checkpoint continues exactly (the parameters and
  // the optimizer state cut back into the shards).
  RunResult resumed = launch_train(3, with(args, {"--shard", "full", "--metrics-csv", dir + "/resumed.csv", "--resume",
                                                  saved("full-3", 6), "--save", dir + "/resumed-{step}.ckpt"}));
  INFO(resumed.out);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out, Contains("resumed from " + saved("full-3", 6) + ": epoch 2, batch 0, step 6"));
  require_close(saved("resumed", 12), saved("full-3", 12), 0.0);

  // The files are the ordinary format: --shard none continues a full run.
  RunResult unsharded = launch_train(3, with(args, {"--metrics-csv", dir + "/unsharded.csv", "--resume",
                                                    saved("full-3", 6), "--save", dir + "/unsharded-{step}.ckpt"}));
  INFO(unsharded.out);
  REQUIRE(unsharded.status == 0);
  require_close(saved("unsharded", 12), saved("full-3", 12), 1e-5);
}
