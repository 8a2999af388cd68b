// The training program's checkpoints within epochs: --checkpoint-every K writes one every K
// steps (in the background), --keep-checkpoints M keeps the newest M, a run resumed from one
// in the middle of an epoch ends bitwise where the uninterrupted run did, and temporary files
// that killed writes left behind are removed at the start.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/save_pattern.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/temporary_files.h"
#include "tests/tools/train/run_train.h"

using namespace brisk;
using namespace brisk::testing;
using namespace brisk::checkpoint::testing;
using Catch::Matchers::Contains;

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

TEST_CASE("train --checkpoint-every: checkpoints within epochs, the newest M kept; resuming mid-epoch is exact") {
  const std::string dir = scratch_dir("train_every");
  const std::string pattern = dir + "/ckpt-{step}.ckpt";
  // Left by a killed write of this pattern, and one of another file, which stays.
  const std::string stale = temporary_path(dir, "ckpt-00000005.ckpt", host_name(), exited_pid());
  const std::string other = temporary_path(dir, "notes.txt", host_name(), exited_pid());
  brisk::testing::write_bytes(stale, {1});
  brisk::testing::write_bytes(other, {1});

  // 8 steps an epoch: checkpoints at steps 3, 6, 8 (the epoch's end), 9, 12, 15, 16.
  Result full = run_train("--model lenet --epochs 2 --metrics-csv " + dir + "/full.csv --save " + pattern +
                          " --checkpoint-every 3 --keep-checkpoints 3");
  REQUIRE(full.status == 0);
  REQUIRE_THAT(full.output, Contains("removed " + stale + ", a temporary file that a killed checkpoint write left"));
  REQUIRE_FALSE(exists(stale));
  REQUIRE(exists(other));
  for (int step : {3, 6, 8, 9, 12, 15, 16}) {
    REQUIRE_THAT(full.output, Contains(fmt::format("saved {}/ckpt-{:08d}.ckpt (step {}: copied in ", dir, step, step)));
  }
  REQUIRE_THAT(full.output, Contains("removed " + dir + "/ckpt-00000009.ckpt, an older checkpoint than the last 3"));
  REQUIRE(checkpoint::list_checkpoints(pattern) == std::vector<std::string>{dir + "/ckpt-00000012.ckpt",
                                                                            dir + "/ckpt-00000015.ckpt",
                                                                            dir + "/ckpt-00000016.ckpt"});
  REQUIRE(checkpoint::newest_checkpoint(pattern) == dir + "/ckpt-00000016.ckpt");

  checkpoint::Checkpoint mid = checkpoint::load_checkpoint(dir + "/ckpt-00000012.ckpt");
  REQUIRE(mid.progress.epoch == 1);
  REQUIRE(mid.progress.batch == 4);
  REQUIRE(mid.progress.step == 12);
  checkpoint::Checkpoint last = checkpoint::load_checkpoint(dir + "/ckpt-00000016.ckpt");
  REQUIRE(last.progress.epoch == 2);
  REQUIRE(last.progress.batch == 0);

  // Interrupted after step 12, in the middle of the second epoch, and resumed in a new process.
  Result resumed = run_train("--model lenet --epochs 2 --metrics-csv " + dir + "/resumed.csv --resume " + dir +
                             "/ckpt-00000012.ckpt --save " + dir + "/resumed-{step}.ckpt --checkpoint-every 3");
  REQUIRE(resumed.status == 0);
  REQUIRE_THAT(resumed.output, Contains("epoch 2, batch 4, step 12"));
  checkpoint::Checkpoint resumed_last = checkpoint::load_checkpoint(dir + "/resumed-00000016.ckpt");
  require_same_state(resumed_last, last);
  checkpoint::Checkpoint resumed_15 = checkpoint::load_checkpoint(dir + "/resumed-00000015.ckpt");
  checkpoint::Checkpoint full_15 = checkpoint::load_checkpoint(dir + "/ckpt-00000015.ckpt");
  require_same_state(resumed_15, full_15);
}

TEST_CASE("train: --checkpoint-every and --keep-checkpoints need a --save that names their files apart") {
  const std::string dir = scratch_dir("train_every_flags");
  Result by_epoch = run_train("--epochs 1 --save " + dir + "/c-{epoch}.ckpt --checkpoint-every 2");
  REQUIRE(by_epoch.status == 1);
  REQUIRE_THAT(by_epoch.output, Contains("names checkpoints by epoch only") && Contains("put {step} in it"));
  Result one_file = run_train("--epochs 1 --save " + dir + "/c.ckpt --keep-checkpoints 2");
  REQUIRE(one_file.status == 1);
  REQUIRE_THAT(one_file.output, Contains("--keep-checkpoints 2: --save '" + dir + "/c.ckpt' names one file"));
  Result no_save = run_train("--epochs 1 --checkpoint-every 2");
  REQUIRE(no_save.status == 1);
  REQUIRE_THAT(no_save.output, Contains("need --save"));
  REQUIRE(brisk::testing::list_dir(dir).empty());
}
