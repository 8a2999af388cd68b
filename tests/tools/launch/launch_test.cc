// The launcher, run as a program on tiny workers (test_worker.cc): the environment it gives
// each rank, its output prefixing, and how it ends the job when a worker fails or it is
// signalled.
#include <signal.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/launch/test_worker_job.h"

namespace {

using namespace brisk::testing;

// The value of NAME in rank r's output of the env scenario.
std::string env_of(const RunResult& result, int rank, const std::string& name) {
  std::string prefix = "[rank " + std::to_string(rank) + "] " + name + "=";
  std::vector<std::string> lines = lines_starting_with(result.out, prefix);
  REQUIRE(lines.size() == 1);
  return lines[0].substr(prefix.size());
}

}  // namespace

TEST_CASE("launch: each rank gets torchrun's environment", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "3", "--master-port", "29517", kWorker, "env"});
  REQUIRE(r.status == 0);
  std::string token = env_of(r, 0, "BRISK_STORE_TOKEN");
  CHECK(token.size() == 32);
  CHECK(token.find_first_not_of("0123456789abcdef") == std::string::npos);
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(env_of(r, rank, "RANK") == std::to_string(rank));
    CHECK(env_of(r, rank, "LOCAL_RANK") == std::to_string(rank));
    CHECK(env_of(r, rank, "WORLD_SIZE") == "3");
    CHECK(env_of(r, rank, "LOCAL_WORLD_SIZE") == "3");
    CHECK(env_of(r, rank, "GROUP_RANK") == "0");
    CHECK(env_of(r, rank, "MASTER_ADDR") == "127.0.0.1");
    CHECK(env_of(r, rank, "MASTER_PORT") == "29517");
    CHECK(env_of(r, rank, "BRISK_STORE_TOKEN") == token);
  }
}

TEST_CASE("launch: a fresh token per job, a free port when none is given", "[launch]") {
  RunResult a = launch({"--nproc-per-node", "2", kWorker, "env"});
  RunResult b = launch({"--nproc-per-node", "1", kWorker, "env"});
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(env_of(a, 0, "BRISK_STORE_TOKEN") != env_of(b, 0, "BRISK_STORE_TOKEN"));
  int port = std::stoi(env_of(a, 0, "MASTER_PORT"));
  CHECK(port > 0);
  CHECK(port < 65536);
  CHECK(env_of(a, 1, "MASTER_PORT") == env_of(a, 0, "MASTER_PORT"));
}

TEST_CASE("launch: OMP_NUM_THREADS is 1 for several workers unless set", "[launch]") {
  // Unset here, as in a shell that never set it (--config=tsan's test environment sets it).
  ::unsetenv("OMP_NUM_THREADS");
  CHECK(env_of(launch({"--nproc-per-node", "2", kWorker, "env"}), 1, "OMP_NUM_THREADS") == "1");
  RunOptions options;
  options.env = {{"OMP_NUM_THREADS", "3"}};
  CHECK(env_of(launch({"--nproc-per-node", "2", kWorker, "env"}, options), 1, "OMP_NUM_THREADS") == "3");
}

TEST_CASE("launch: the second node of two takes ranks 2 and 3 and the shared token", "[launch]") {
  RunOptions options;
  options.env = {{"BRISK_STORE_TOKEN", "00ff00ff00ff00ff"}};
  RunResult r = launch({"--nnodes", "2", "--node-rank", "1", "--nproc-per-node", "2", "--master-addr", "10.1.2.3",
                        "--master-port", "29400", kWorker, "env"},
                       options);
  REQUIRE(r.status == 0);
  for (int local = 0; local < 2; ++local) {
    int rank = 2 + local;
    CHECK(env_of(r, rank, "RANK") == std::to_string(rank));
    CHECK(env_of(r, rank, "LOCAL_RANK") == std::to_string(local));
    CHECK(env_of(r, rank, "WORLD_SIZE") == "4");
    CHECK(env_of(r, rank, "LOCAL_WORLD_SIZE") == "2");
    CHECK(env_of(r, rank, "GROUP_RANK") == "1");
    CHECK(env_of(r, rank, "MASTER_ADDR") == "10.1.2.3");
    CHECK(env_of(r, rank, "MASTER_PORT") == "29400");
    CHECK(env_of(r, rank, "BRISK_STORE_TOKEN") == "00ff00ff00ff00ff");
  }
  CHECK(lines_starting_with(r.out, "[rank 0] ").empty());
}

TEST_CASE("launch: refuses a multi-node job without a port or a shared token", "[launch]") {
  RunOptions with_token;
  with_token.env = {{"BRISK_STORE_TOKEN", "abcd"}};
  RunResult no_port = launch({"--nnodes", "2", "--nproc-per-node", "1", kWorker, "env"}, with_token);
  CHECK(no_port.status == 2);
  CHECK(count(no_port.err, "needs --master-port") == 1);

  RunOptions no_token;
  no_token.env = {{"BRISK_STORE_TOKEN", ""}};
  RunResult r = launch({"--nnodes", "2", "--master-port", "29400", kWorker, "env"}, no_token);
  CHECK(r.status == 2);
  CHECK(count(r.err, "needs BRISK_STORE_TOKEN") == 1);

  RunOptions bad_token;
  bad_token.env = {{"BRISK_STORE_TOKEN", "not-hex"}};
  RunResult bad = launch({kWorker, "env"}, bad_token);
  CHECK(bad.status == 2);
  CHECK(count(bad.err, "must be hex digits") == 1);

  RunResult node_rank = launch({"--nnodes", "2", "--node-rank", "2", "--master-port", "1", kWorker, "env"}, with_token);
  CHECK(node_rank.status == 2);
  CHECK(count(node_rank.err, "--node-rank 2 is outside [0, 2)") == 1);
}

TEST_CASE("launch: an unknown option is an error naming it, not the worker program", "[launch]") {
  for (const std::string& option : {"--nproc", "-n"}) {
    RunResult r = launch({option, "2", kWorker, "env"});
    INFO(output_of(r));
    CHECK(r.status == 2);
    CHECK(count(r.err, "launch: unknown option '" + option + "'") == 1);
    CHECK(lines_starting_with(r.out, "[rank 0] ").empty());
  }
}

TEST_CASE("launch: torchrun's underscore spellings are accepted", "[launch]") {
  RunResult r = launch({"--nproc_per_node=2", "--nnodes=1", "--node_rank=0", "--master_addr", "127.0.0.1",
                        "--master_port=29518", "--grace_period=1", kWorker, "env"});
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  CHECK(env_of(r, 1, "WORLD_SIZE") == "2");
  CHECK(env_of(r, 1, "MASTER_PORT") == "29518");
}

TEST_CASE("launch: a bad number gets a short error naming the option and the value", "[launch]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--nproc-per-node", "0"}, "--nproc-per-node: expected an integer >= 1, got '0'"},
      {{"--nproc-per-node", "two"}, "--nproc-per-node: expected an integer >= 1, got 'two'"},
      {{"--nproc_per_node=2.5"}, "--nproc-per-node: expected an integer >= 1, got '2.5'"},
      {{"--node-rank", "-1"}, "--node-rank: expected an integer >= 0, got '-1'"},
      {{"--master-port", "70000"}, "--master-port: expected an integer from 0 to 65535, got '70000'"},
      {{"--grace-period", "soon"}, "--grace-period: expected a number of seconds >= 0, got 'soon'"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> args = options;
    args.insert(args.end(), {kWorker, "env"});
    RunResult r = launch(args);
    INFO(output_of(r));
    CHECK(r.status == 2);
    CHECK(count(r.err, "launch: " + message) == 1);
    CHECK(r.err.size() < 200);
  }
}

TEST_CASE("launch: output lines are prefixed with the rank, stdout and stderr kept apart", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "2", kWorker, "streams"});
  REQUIRE(r.status == 0);
  for (int rank = 0; rank < 2; ++rank) {
    std::string p = "[rank " + std::to_string(rank) + "] ";
    CHECK(lines_starting_with(r.out, p) ==
          std::vector<std::string>{p + "out one", p + "out two", p + "split line", p + "no newline"});
    CHECK(lines_starting_with(r.err, p) == std::vector<std::string>{p + "err one", p + "err two"});
  }
  // Every line of either stream carries a prefix: nothing was interleaved mid-line.
  CHECK(lines_starting_with(r.out, "[rank ").size() == 8);
  CHECK(count(r.out, "\n") == 8);
  CHECK(count(r.err, "\n") == 4);
}

TEST_CASE("launch: a failing worker stops the others and its exit code is the launcher's", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "3", kWorker, "fail", "1", "3"});
  CHECK(r.status == 3);
  CHECK(count(r.err, "launch: rank 1 (local rank 1, pid ") == 1);
  CHECK(count(r.err, "exited with code 3") == 1);
  CHECK(count(r.out, "[rank 1] failing") == 1);
  CHECK(count(r.out, "finished") == 0);  // the others did not run their 30 s out
  CHECK(r.seconds < 10);
}

TEST_CASE("launch: a SIGKILLed worker stops the others; the launcher exits 128 + 9", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "3", kWorker, "sigkill", "2"});
  CHECK(r.status == 137);
  CHECK(count(r.err, "launch: rank 2 (local rank 2, pid ") == 1);
  CHECK(count(r.err, "was killed by signal SIGKILL (9)") == 1);
  CHECK(count(r.out, "finished") == 0);
  CHECK(r.seconds < 10);
}

TEST_CASE("launch: of failures close together, a worker killed by a signal is taken as the cause", "[launch]") {
  // Rank 0 exits with 1 first (as a peer of a crashed worker does), rank 2 is killed 100 ms
  // later: both are named, and the launcher exits with rank 2's status.
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  RunResult r = launch({"--nproc-per-node", "3", kWorker, "two_failures", "0", "2", dir});
  CHECK(r.status == 137);
  CHECK(count(r.err, "launch: rank 2 (local rank 2, pid ") == 1);
  CHECK(count(r.err, "was killed by signal SIGKILL (9); also rank 0 (local rank 0, pid ") == 1);
  CHECK(count(r.err, "exited with code 1; sending SIGTERM to the 1 running worker") == 1);
  CHECK(count(r.out, "finished") == 0);
}

TEST_CASE("launch: a worker that ignores SIGTERM gets SIGKILL after the grace period", "[launch]") {
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  RunResult r = launch({"--nproc-per-node", "2", "--grace-period", "0.5", kWorker, "stubborn", "1", dir});
  CHECK(r.status == 1);
  CHECK(count(r.err, "rank 1 (local rank 1, pid ") == 1);
  CHECK(count(r.err, "rank 0 (pid ") == 1);
  CHECK(count(r.err, "still running after the grace period; sending SIGKILL") == 1);
  CHECK(count(r.out, "finished") == 0);
  CHECK(r.seconds < 10);
}

TEST_CASE("launch: SIGTERM and SIGINT are forwarded to every worker", "[launch]") {
  int signal = GENERATE(SIGTERM, SIGINT);
  std::string name = signal == SIGTERM ? "SIGTERM" : "SIGINT";
  RunOptions options;
  options.signal = signal;
  options.signal_after = "] ready";
  options.signal_after_count = 3;
  RunResult r = launch({"--nproc-per-node", "3", kWorker, "trap"}, options);
  CHECK(r.status == 128 + signal);
  CHECK(count(r.err, "launch: received " + name) == 1);
  for (int rank = 0; rank < 3; ++rank) CHECK(count(r.out, "[rank " + std::to_string(rank) + "] caught " + name) == 1);
}

TEST_CASE("launch: a worker program that cannot start fails the job with 127", "[launch]") {
  RunResult r = launch({"--nproc-per-node", "2", "tests/tools/launch/no_such_worker"});
  CHECK(r.status == 127);
  CHECK(count(r.err, "cannot start rank 0: tests/tools/launch/no_such_worker: No such file or directory") == 1);
}

TEST_CASE("launch: under bazel run the workers start where bazel run was called", "[launch]") {
  // bazel run sets BUILD_WORKING_DIRECTORY; the worker's relative path is taken from there.
  char* root = realpath(".", nullptr);
  REQUIRE(root != nullptr);
  std::string dir = std::string(root) + "/tests/tools/launch";
  std::free(root);
  RunOptions options;
  options.env = {{"BUILD_WORKING_DIRECTORY", dir}};
  RunResult r = launch({"--nproc-per-node", "2", "./test_worker", "cwd"}, options);
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  CHECK(count(r.out, "] cwd=" + dir + "\n") == 2);

  options.env = {{"BUILD_WORKING_DIRECTORY", dir + "/no_such_directory"}};
  r = launch({"--nproc-per-node", "1", "./test_worker", "cwd"}, options);
  CHECK(r.status == 2);
  CHECK(count(r.err, "launch: cannot enter BUILD_WORKING_DIRECTORY '" + dir + "/no_such_directory'") == 1);
}
