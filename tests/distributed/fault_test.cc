// Faults in a real multi-process job started by the launcher: a worker killed with SIGKILL
// in the middle of training takes the job down, within the timeout, with the dead rank
// named; a SIGSTOPped worker (or the store's host) is named by the others within the heartbeat
// timeout, each failure listing the flight recorder; and training resumed from the last
// checkpoint ends where the uninterrupted run does. The detection times are printed.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "tests/scratch_files.h"
#include "tests/tools/launch/run_launcher.h"

namespace {

using namespace brisk::testing;

const std::string kWorker = "tests/distributed/launch_worker";

RunResult train(int nproc, const std::vector<std::string>& extra, const std::string& dir, double grace = 10,
                std::vector<std::pair<std::string, std::string>> env = {{"BRISK_TEST_TIMEOUT_MS", "5000"}}) {
  std::vector<std::string> args{
      "--nproc-per-node", std::to_string(nproc), "--grace-period", std::to_string(grace), kWorker, "train", dir, "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunOptions options;
  options.env = std::move(env);
  return run_launcher(args, options);
}

// The "(monotonic T ms)" of the one line of `text` that contains `marker`.
int64_t monotonic_of(const std::string& text, const std::string& marker) {
  std::vector<std::string> lines = lines_starting_with(text, marker);
  REQUIRE(lines.size() == 1);
  size_t at = lines[0].find("monotonic ");
  REQUIRE(at != std::string::npos);
  return std::stoll(lines[0].substr(at + 10));
}

// Seconds from the fault (rank `faulty`'s "<verb> myself at step") to rank `rank`'s failure.
double detection_seconds(const RunResult& r, const std::string& verb, int faulty, int rank) {
  int64_t fault = monotonic_of(r.out, "[rank " + std::to_string(faulty) + "] " + verb + " myself");
  int64_t failure = monotonic_of(r.err, "[rank " + std::to_string(rank) + "] failed at monotonic ");
  double seconds = static_cast<double>(failure - fault) / 1000;
  std::printf("detection time: rank %d noticed rank %d's fault after %.2f s\n", rank, faulty, seconds);
  return seconds;
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
    // The dead peer closed its sockets: noticed at once, not at the 5 s timeout.
    CHECK(detection_seconds(r, "killing", 1, rank) < 3);
  }
}

// The heartbeat alone can find these: the collectives' timeout is 2 minutes.
const std::vector<std::pair<std::string, std::string>> kHeartbeatEnv{{"BRISK_TEST_TIMEOUT_MS", "120000"},
                                                                     {"BRISK_HEARTBEAT_TIMEOUT", "2"}};

// Survivor `rank`'s one error line, after rank `stopped` SIGSTOPped itself; checks that it came
// within the heartbeat timeout: 2 s, less the beat interval (0.2 s) the last beat may precede
// the stop by, plus a round and a watcher interval, generously on a busy machine.
std::string heartbeat_error(const RunResult& r, int stopped, int rank) {
  CHECK(r.status != 0);
  CHECK(count(r.out, "[rank " + std::to_string(stopped) + "] stopping myself at step 12") == 1);
  CHECK(r.seconds < 20);
  std::vector<std::string> errors = lines_starting_with(r.err, "[rank " + std::to_string(rank) + "] rank ");
  REQUIRE(errors.size() == 1);
  double seconds = detection_seconds(r, "stopping", stopped, rank);
  CHECK(seconds > 1.7);
  CHECK(seconds < 4);
  return errors[0];
}

TEST_CASE("fault: a SIGSTOPped rank is named by the others within the heartbeat timeout", "[distributed][fault]") {
  RunResult r = train(3, {"--stop", "1", "12"}, scratch_dir("fault_stop"), 1, kHeartbeatEnv);
  INFO(output_of(r));
  for (int rank : {0, 2}) {
    std::string error = heartbeat_error(r, 1, rank);
    CHECK(count(error, "rank 1 is unresponsive: no heartbeat for ") == 1);
    CHECK(count(error, " s (heartbeat timeout 2 s); it is stopped, hung or dead") == 1);
    // The flight recorder: rank 1 finished #11 and never entered #12, where the others wait.
    std::string who = "[rank " + std::to_string(rank) + "] ";
    CHECK(
        count(r.err,
              who + "flight recorder (the last collectives each rank started; a peer's as it last published them):") ==
        1);
    CHECK(count(r.err, who + "  rank 1: started 12, finished 12; last: all_reduce #8(numel 8, float32, AVG), ") == 1);
    CHECK(count(r.err, who + "  rank " + std::to_string(rank) + ": started 13, finished 12; last: ") == 1);
  }
}

TEST_CASE("fault: a SIGSTOPped store host is named by the others within the heartbeat timeout",
          "[distributed][fault]") {
  RunResult r = train(2, {"--stop", "0", "12"}, scratch_dir("fault_stop_host"), 1, kHeartbeatEnv);
  INFO(output_of(r));
  std::string error = heartbeat_error(r, 0, 1);
  CHECK(count(error, "rank 0 (the store's host) is unresponsive: the store has not answered for ") == 1);
  CHECK(count(r.err, "[rank 1]   rank 1: started 13, finished 12; last: ") == 1);
  CHECK(count(r.err, "[rank 1]   other ranks: unknown: the store does not answer") == 1);
}

// The collective's timeout (3 s) comes before the heartbeat's (30 s): the failure at the timeout
// names rank 0 as the store's host, silent since the stop (the heartbeat's rounds say so, so the
// failure does not wait on the store), not only "the store".
TEST_CASE("fault: a SIGSTOPped store host is named at the collective timeout, before the heartbeat timeout",
          "[distributed][fault]") {
  RunResult r = train(2, {"--stop", "0", "12"}, scratch_dir("fault_stop_host_timeout"), 1,
                      {{"BRISK_TEST_TIMEOUT_MS", "3000"}, {"BRISK_HEARTBEAT_TIMEOUT", "30"}});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  std::vector<std::string> errors = lines_starting_with(r.err, "[rank 1] rank ");
  REQUIRE(errors.size() == 1);
  CHECK(count(errors[0], "all_reduce #12 failed after") == 1);
  CHECK(count(errors[0], "is unknown: rank 0, which hosts the store at ") == 1);
  CHECK(count(errors[0], ", has not answered for ") == 1);
  CHECK(count(r.err, "[rank 1]   other ranks: unknown: rank 0, which hosts the store at ") == 1);
  double seconds = detection_seconds(r, "stopping", 0, 1);
  CHECK(seconds > 2.5);
  CHECK(seconds < 4.5);  // the 3 s timeout, not more asking the store
}

// Rank 0 exits (status 0) in the middle of the job without destroying its group: its peer's
// collective fails at once and names rank 0 as the store's host.
TEST_CASE("fault: a store host that exited early is named by the others", "[distributed][fault]") {
  RunResult r = train(2, {"--exit", "0", "12"}, scratch_dir("fault_exit_host"), 1,
                      {{"BRISK_TEST_TIMEOUT_MS", "5000"}, {"BRISK_HEARTBEAT_TIMEOUT", "30"}});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  std::vector<std::string> errors = lines_starting_with(r.err, "[rank 1] rank ");
  REQUIRE(errors.size() == 1);
  CHECK(count(errors[0], "all_reduce #12 failed after") == 1);
  CHECK(count(r.err, "rank 0, which hosts the store at ") >= 1);
  CHECK(detection_seconds(r, "exiting", 0, 1) < 9);
}

TEST_CASE("fault: a rank looping outside collectives is named within the heartbeat timeout, failed at the timeout",
          "[distributed][fault]") {
  std::string dir = scratch_dir("fault_spin");
  RunResult r =
      train(3, {"--spin", "1", "12"}, dir, 1, {{"BRISK_TEST_TIMEOUT_MS", "6000"}, {"BRISK_HEARTBEAT_TIMEOUT", "2"}});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(count(r.out, "[rank 1] spinning myself at step 12") == 1);
  CHECK(r.seconds < 20);
  for (int rank : {0, 2}) {
    std::string who = "[rank " + std::to_string(rank) + "] ";
    // Named at the heartbeat timeout (a warning: it could be long work of its own)...
    std::vector<std::string> warnings = lines_starting_with(
        r.err, who + "ProcessGroupGloo 'default' rank " + std::to_string(rank) + "/3: warning: waiting ");
    REQUIRE(warnings.size() == 1);
    CHECK(count(warnings[0], " s in all_reduce #12(numel 8, float32, AVG) for rank 1, which has not entered it") == 1);
    CHECK(count(warnings[0], "the collective fails at its timeout (6000 ms)") == 1);
    double waited = std::stod(warnings[0].substr(warnings[0].find("waiting ") + 8));
    std::printf("stall warning: rank %d named the looping rank 1 after waiting %.1f s\n", rank, waited);
    CHECK(waited >= 2);
    CHECK(waited < 3);
    // ... and failed at the collective's timeout, naming it again.
    std::vector<std::string> errors = lines_starting_with(r.err, who + "rank ");
    REQUIRE(errors.size() == 1);
    CHECK(count(errors[0], "never entered all_reduce #12: [1]") == 1);
    CHECK(detection_seconds(r, "spinning", 1, rank) < 9);
  }
}

TEST_CASE("fault: with a stall timeout, a rank looping outside collectives fails the job at that timeout",
          "[distributed][fault]") {
  std::string dir = scratch_dir("fault_spin_stall");
  RunResult r = train(
      3, {"--spin", "1", "12"}, dir, 1,
      {{"BRISK_TEST_TIMEOUT_MS", "60000"}, {"BRISK_HEARTBEAT_TIMEOUT", "2"}, {"BRISK_TEST_STALL_TIMEOUT_MS", "4000"}});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 30);  // not the 60 s collective timeout
  for (int rank : {0, 2}) {
    std::string who = "[rank " + std::to_string(rank) + "] ";
    std::vector<std::string> warnings = lines_starting_with(
        r.err, who + "ProcessGroupGloo 'default' rank " + std::to_string(rank) + "/3: warning: waiting ");
    REQUIRE(warnings.size() == 1);
    CHECK(count(warnings[0], "the group fails at its stall timeout (4000 ms)") == 1);
    std::vector<std::string> errors = lines_starting_with(r.err, who + "rank ");
    REQUIRE(errors.size() == 1);
    CHECK(count(errors[0], "stall timeout (4000 ms): waiting 4.") == 1);
    CHECK(count(errors[0], " s in all_reduce #12(numel 8, float32, AVG) for rank 1, which has not entered it") == 1);
    // From rank 1's last step (the others entered the collective a little before it) to the failure.
    CHECK(detection_seconds(r, "spinning", 1, rank) < 8);
  }
}
