// launch --max-restarts, run as a program on tiny workers (test_worker.cc): a failed round
// starts the whole group again with the next round's number and store token, up to the limit;
// a signal to the launcher is never restarted; a stopped worker does not hold the job up.
#include <signal.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/tools/launch/test_worker_job.h"

using namespace brisk::testing;

TEST_CASE("launch --max-restarts: a failed round starts every worker again, in a new round", "[launch]") {
  RunOptions options;
  options.env = {{"BRISK_STORE_TOKEN", "00ff00ff"}};
  // Rank 1 dies in rounds 0 and 1; round 2 succeeds.
  RunResult r = launch({"--nproc-per-node", "3", "--max-restarts", "3", kWorker, "fail_rounds", "1", "2"}, options);
  INFO(output_of(r));
  CHECK(r.status == 0);
  for (int restart : {1, 2}) {
    CHECK(count(r.err, "launch: restart " + std::to_string(restart) + " of 3 (round " + std::to_string(restart) +
                           ") after rank 1 (local rank 1, pid ") == 1);
  }
  CHECK(count(r.err, "was killed by signal SIGKILL (9)") == 4);  // the failure and its restart, twice
  CHECK(count(r.err, "restart 3") == 0);
  // Every rank of the last round, and only of it, finished; with round 2's own token.
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(lines_starting_with(r.out, "[rank " + std::to_string(rank) + "] round ") ==
          std::vector<std::string>{"[rank " + std::to_string(rank) +
                                   "] round 2 (BRISK_RESTART_ROUND 2) of max 3, token 00ff00ff00000002"});
  }
  CHECK(count(r.out, "finished") == 0);
}

TEST_CASE("launch --max-restarts: when the restarts are used up, the last failure's status", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "2", "--max-restarts", "2", kWorker, "fail_rounds", "0", "5"});
  INFO(output_of(r));
  CHECK(r.status == 137);
  CHECK(count(r.err, "launch: restart 1 of 2 (round 1) after rank 0 (local rank 0, pid ") == 1);
  CHECK(count(r.err, "launch: restart 2 of 2 (round 2) after rank 0 (local rank 0, pid ") == 1);
  CHECK(count(r.err, "launch: round 2 failed and all 2 restarts are used; exiting with status 137") == 1);
  CHECK(count(r.out, "] round ") == 0);
}

TEST_CASE("launch --max-restarts: a signal to the launcher ends the job without a restart", "[launch]") {
  RunOptions options;
  options.signal = SIGTERM;
  options.signal_after = "] ready";
  options.signal_after_count = 2;
  RunResult r = launch({"--nproc-per-node", "2", "--max-restarts", "2", kWorker, "trap"}, options);
  INFO(output_of(r));
  CHECK(r.status == 128 + SIGTERM);
  CHECK(count(r.err, "restart") == 0);
  CHECK(count(r.out, "] ready") == 2);
}

TEST_CASE("launch: a stopped (SIGSTOP) worker is stopped at once, not after the grace period", "[launch]") {
  // SIGTERM stays pending at a stopped process; the SIGCONT after it delivers it.
  RunResult r = launch({"--nproc-per-node", "2", "--grace-period", "20", kWorker, "stop", "1"});
  INFO(output_of(r));
  CHECK(r.status == 1);
  CHECK(count(r.err, "launch: rank 0 (local rank 0, pid ") == 1);
  CHECK(count(r.err, "still running after the grace period") == 0);
  CHECK(r.seconds < 10);
}
