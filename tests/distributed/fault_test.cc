// Faults in a real multi-process job started by the launcher: a worker killed with SIGKILL
// in the middle of training takes the job down, within the timeout, with the dead rank
// named; and training resumed from the last checkpoint ends where the uninterrupted run does.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "tests/scratch_files.h"
#include "tests/tools/launch/run_launcher.h"

namespace {

using namespace brisk::testing;

const std::string kWorker = "tests/distributed/launch_worker";

RunResult train(int nproc, const std::vector<std::string>& extra, const std::string& dir, double grace = 10) {
  std::vector<std::string> args{
      "--nproc-per-node", std::to_string(nproc), "--grace-period", std::to_string(grace), kWorker, "train", dir, "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunOptions options;
  options.env = {{"BRISK_TEST_TIMEOUT_MS", "5000"}};
  return run_launcher(args, options);
}

std::string final_line(const RunResult& r) {
  std::vector<std::string> lines = lines_starting_with(r.out, "[rank 0] final: ");
  REQUIRE(lines.size() == 1);
  return lines[0];
}

std::string checkpoint_step(const std::string& dir) {
  std::ifstream in(dir + "/checkpoint");
  std::string step;
  in >> step;
  return step;
}

}  // namespace

TEST_CASE("fault: a SIGKILLed worker stops the job; the launcher names the dead rank", "[distributed][fault]") {
  std::string dir = scratch_dir("fault_kill");
  RunResult r = train(3, {"--kill", "1", "12"}, dir);
  INFO(output_of(r));
  CHECK(r.status == 137);
  CHECK(count(r.err, "launch: rank 1 (local rank 1, pid ") == 1);
  CHECK(count(r.err, "was killed by signal SIGKILL (9)") == 1);
  CHECK(count(r.out, "[rank 1] killing myself at step 12") == 1);
  CHECK(count(r.out, "final:") == 0);
  CHECK(r.seconds < 30);
  CHECK(checkpoint_step(dir) == "10");
}

TEST_CASE("fault: survivors find the dead peer themselves and exit non-zero naming it", "[distributed][fault]") {
  // The survivors ignore the launcher's SIGTERM and the grace period is long: they must stop
  // on their own, through the process group's error, within its 5 s timeout.
  std::string dir = scratch_dir("fault_survivors");
  RunResult r = train(3, {"--kill", "1", "12", "--ignore-sigterm"}, dir, 40);
  INFO(output_of(r));
  CHECK(r.status == 137);
  CHECK(count(r.err, "launch: rank 1 (local rank 1, pid ") == 1);
  CHECK(count(r.err, "still running after the grace period") == 0);
  CHECK(r.seconds < 20);
  for (int rank : {0, 2}) {
    std::vector<std::string> errors = lines_starting_with(r.err, "[rank " + std::to_string(rank) + "] rank ");
    REQUIRE(errors.size() == 1);
    CHECK(count(errors[0], "all_reduce #12 failed after") == 1);
    CHECK(count(errors[0], "never entered all_reduce #12: [1]") == 1);
  }
}

TEST_CASE("fault: resuming from the last checkpoint reproduces the uninterrupted run", "[distributed][fault]") {
  std::string whole = scratch_dir("fault_whole");
  RunResult uninterrupted = train(2, {}, whole);
  REQUIRE(uninterrupted.status == 0);

  std::string dir = scratch_dir("fault_resume");
  RunResult killed = train(2, {"--kill", "1", "12"}, dir);
  REQUIRE(killed.status == 137);
  REQUIRE(checkpoint_step(dir) == "10");
  RunResult resumed = train(2, {"--resume"}, dir);
  REQUIRE(resumed.status == 0);
  CHECK(count(resumed.out, "[rank 0] starting at step 10 of 20") == 1);
  CHECK(final_line(resumed) == final_line(uninterrupted));
}
