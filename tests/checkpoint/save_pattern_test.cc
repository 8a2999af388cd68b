// Save patterns: the names of a run's checkpoints, and finding the newest complete one.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checkpoint/atomic_file.h"
#include "checkpoint/save_pattern.h"
#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/temporary_files.h"

using namespace brisk::checkpoint;
using namespace brisk::checkpoint::testing;
using Catch::Matchers::Contains;

namespace {

Progress at(int64_t epoch, int64_t step) {
  Progress p;
  p.epoch = epoch;
  p.step = step;
  return p;
}

void touch(const std::string& path) { write_bytes(path, {1, 2, 3}); }

}  // namespace

TEST_CASE("checkpoint_path: {epoch} is the epochs completed, {step} the steps, zero-padded to 8 digits") {
  REQUIRE(checkpoint_path("runs/ckpt-{step}.safetensors", at(1, 1200)) == "runs/ckpt-00001200.safetensors");
  REQUIRE(checkpoint_path("ckpt-{epoch}.safetensors", at(3, 99)) == "ckpt-3.safetensors");
  REQUIRE(checkpoint_path("/abs/model.safetensors", at(3, 99)) == "/abs/model.safetensors");
  REQUIRE(checkpoint_path("s{step}", at(0, 123456789)) == "s123456789");
  REQUIRE(save_pattern_placeholder("a/ckpt-{step}") == Placeholder::kStep);
  REQUIRE(save_pattern_placeholder("a/ckpt-{epoch}") == Placeholder::kEpoch);
  REQUIRE(save_pattern_placeholder("a/ckpt.safetensors") == Placeholder::kNone);
}

TEST_CASE("save_pattern_placeholder refuses what is not a pattern of one placeholder, naming the problem") {
  REQUIRE(save_pattern_placeholder("runs/{x/ckpt-{step}.st") == Placeholder::kStep);  // braces in the directory
  REQUIRE_THROWS_WITH(save_pattern_placeholder("runs/{epoch}/ckpt.st"),
                      Contains("runs/{epoch}/ckpt.st") && Contains("not in the directory 'runs/{epoch}/'"));
  REQUIRE_THROWS_WITH(save_pattern_placeholder("ckpt-{steps}.st"), Contains("unknown placeholder {steps}"));
  REQUIRE_THROWS_WITH(save_pattern_placeholder("ckpt-{step"), Contains("unknown placeholder {step;"));
  REQUIRE_THROWS_WITH(save_pattern_placeholder("ckpt-{step}-{step}.st"),
                      Contains("save pattern 'ckpt-{step}-{step}.st': more than one placeholder"));
  REQUIRE_THROWS_WITH(save_pattern_placeholder("ckpt-e{epoch}-s{step}.st"), Contains("more than one placeholder"));
  REQUIRE_THROWS_WITH(save_pattern_placeholder("runs/"), Contains("not a file path"));
  REQUIRE_THROWS_WITH(checkpoint_path("ckpt-{stp}", at(0, 0)), Contains("unknown placeholder {stp}"));
}

TEST_CASE("newest_checkpoint: the largest number; other files and temporaries ignored") {
  std::string dir = scratch_dir("save_pattern_newest");
  const std::string pattern = dir + "/ckpt-s{step}.safetensors";
  REQUIRE(list_checkpoints(pattern).empty());
  REQUIRE_FALSE(newest_checkpoint(pattern).has_value());
  REQUIRE_FALSE(newest_checkpoint(dir + "/missing_dir/ckpt-{step}").has_value());

  touch(checkpoint_path(pattern, at(0, 500)));
  touch(checkpoint_path(pattern, at(1, 938)));
  touch(dir + "/ckpt-s9999.safetensors");  // written unpadded by hand: still read as a number
  touch(dir + "/ckpt-s1000.safetensors");
  touch(dir + "/ckpt-sX.safetensors");  // not a number
  touch(dir + "/ckpt-s.safetensors");   // no number
  touch(dir + "/ckpt-s2000.safetensors.bak");
  touch(dir + "/other-s3000.safetensors");
  touch(dir + "/.ckpt-s00090000.safetensors.tmp-node1-123-0");  // a write in progress or killed
  REQUIRE(list_checkpoints(pattern) ==
          std::vector<std::string>{dir + "/ckpt-s00000500.safetensors", dir + "/ckpt-s00000938.safetensors",
                                   dir + "/ckpt-s1000.safetensors", dir + "/ckpt-s9999.safetensors"});
  REQUIRE(newest_checkpoint(pattern) == dir + "/ckpt-s9999.safetensors");

  // {epoch}: ordered by epoch as numbers (10 after 9); a digit after the placeholder is part of the suffix.
  const std::string by_epoch = dir + "/ep{epoch}0.st";
  for (int64_t e : {1, 9, 10, 2}) touch(checkpoint_path(by_epoch, at(e, 0)));
  REQUIRE(newest_checkpoint(by_epoch) == dir + "/ep100.st");
  REQUIRE(list_checkpoints(by_epoch).front() == dir + "/ep10.st");
}

TEST_CASE("newest_checkpoint: a pattern without placeholders is its one file, when it exists") {
  std::string dir = scratch_dir("save_pattern_single");
  const std::string pattern = dir + "/model.safetensors";
  REQUIRE_FALSE(newest_checkpoint(pattern).has_value());
  {
    AtomicFile file(pattern);  // an unfinished write is not a checkpoint
    file.write("x", 1);
    REQUIRE_FALSE(newest_checkpoint(pattern).has_value());
    file.commit();
  }
  REQUIRE(newest_checkpoint(pattern) == pattern);
}

TEST_CASE("newest_checkpoint: a bare file name looks in the working directory; directories do not count") {
  std::string dir = scratch_dir("save_pattern_cwd");
  REQUIRE(::chdir(dir.c_str()) == 0);
  touch("c-00000007.st");
  REQUIRE(::mkdir("c-00000009.st", 0755) == 0);
  REQUIRE(newest_checkpoint("c-{step}.st") == std::string("c-00000007.st"));
}

TEST_CASE("remove_stale_checkpoint_temporaries: the stale temporaries of every checkpoint of the pattern") {
  std::string dir = scratch_dir("save_pattern_stale");
  auto temporary = [&](const std::string& target) {
    // This process's ID, but no live write of it: left by an earlier process with the same ID.
    std::string path = temporary_path(dir, target, host_name(), ::getpid());
    touch(path);
    return path;
  };
  const std::string a = temporary("ckpt-00000010.st"), b = temporary("ckpt-00000020.st");
  temporary("other-00000010.st");
  std::vector<std::string> removed = remove_stale_checkpoint_temporaries(dir + "/ckpt-{step}.st");
  std::sort(removed.begin(), removed.end());
  REQUIRE(removed == std::vector<std::string>{a, b});
  REQUIRE(list_dir(dir) ==
          std::vector<std::string>{
              temporary_path(dir, "other-00000010.st", host_name(), ::getpid()).substr(dir.size() + 1)});
}
