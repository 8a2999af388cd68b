// launch --max-restarts with two nodes: two launchers on this machine (--nnodes 2 on
// 127.0.0.1), each with two workers (test_worker.cc). A worker that dies on one node stops the
// other node's workers too, and both launchers start round 1 together, through the control
// store node 0's launcher hosts (distributed/launch/round_coordinator.h).
#include <signal.h>

#include <catch2/catch.hpp>
#include <future>
#include <string>
#include <vector>

#include "distributed/launch/free_port.h"
#include "tests/tools/launch/process_runner.h"

namespace {

using namespace brisk::testing;

const std::string kToken = "0123abcd";

// Runs both nodes' launchers at once with `launcher` options and the worker's `scenario`;
// `node1` is node 1's launcher's run (e.g. a signal to send it).
std::vector<RunResult> two_nodes(const std::vector<std::string>& launcher, const std::vector<std::string>& scenario,
                                 RunOptions node1 = {}) {
  const std::string master_port = std::to_string(brisk::launch::free_port("127.0.0.1"));
  const std::string control_port = std::to_string(brisk::launch::free_port("127.0.0.1"));
  RunOptions options;
  options.env = {{"BRISK_STORE_TOKEN", kToken}};
  options.timeout = std::chrono::seconds(60);
  std::vector<std::future<RunResult>> nodes;
  for (int node = 0; node < 2; ++node) {
    std::vector<std::string> argv{launcher_path(),      "--nnodes",         "2",         "--node-rank",
                                  std::to_string(node), "--nproc-per-node", "2",         "--master-port",
                                  master_port,          "--control-port",   control_port};
    argv.insert(argv.end(), launcher.begin(), launcher.end());
    argv.push_back("tests/tools/launch/test_worker");
    argv.insert(argv.end(), scenario.begin(), scenario.end());
    RunOptions mine = options;
    if (node == 1) {
      mine.signal = node1.signal;
      mine.signal_after = node1.signal_after;
      mine.signal_after_count = node1.signal_after_count;
    }
    nodes.push_back(std::async(std::launch::async, [argv, mine] { return run_process(argv, mine); }));
  }
  std::vector<RunResult> results;
  for (auto& node : nodes) results.push_back(node.get());
  return results;
}

}  // namespace

TEST_CASE("launch --max-restarts on two nodes: a death on node 1 restarts the workers of both", "[launch]") {
  // Rank 3 (node 1, local rank 1) dies in round 0; round 1 succeeds.
  std::vector<RunResult> nodes = two_nodes({"--max-restarts", "2"}, {"fail_rounds", "3", "1"});
  for (int node = 0; node < 2; ++node) {
    const RunResult& r = nodes[node];
    INFO("node " << node << "\n" << output_of(r));
    CHECK_FALSE(r.timed_out);
    CHECK(r.status == 0);
    CHECK(count(r.err, "launch: restart 1 of 2 (round 1) after node 1: rank 3 (local rank 1, pid ") == 1);
    CHECK(count(r.err, "restart 2") == 0);
    for (int local = 0; local < 2; ++local) {
      const std::string rank = std::to_string(2 * node + local);
      CHECK(lines_starting_with(r.out, "[rank " + rank + "] round ") ==
            std::vector<std::string>{"[rank " + rank + "] round 1 (BRISK_RESTART_ROUND 1) of max 2, token " + kToken +
                                     "00000001"});
    }
  }
  // Node 0's workers were stopped because of node 1's failure, which its launcher names.
  CHECK(count(nodes[0].err, "launch: node 1: rank 3 (local rank 1, pid ") == 1);
  CHECK(count(nodes[0].err, "sending SIGTERM to the 2 running workers") == 1);
  CHECK(count(nodes[0].out, "finished") == 0);
}

TEST_CASE("launch --max-restarts on two nodes: both give up together when the restarts are used", "[launch]") {
  std::vector<RunResult> nodes = two_nodes({"--max-restarts", "1"}, {"fail_rounds", "0", "5"});
  for (int node = 0; node < 2; ++node) {
    const RunResult& r = nodes[node];
    INFO("node " << node << "\n" << output_of(r));
    CHECK_FALSE(r.timed_out);
    CHECK(r.status == 137);
    CHECK(count(r.err, "launch: restart 1 of 1 (round 1) after node 0: rank 0 (local rank 0, pid ") == 1);
    CHECK(count(r.err, "launch: round 1 failed and all 1 restarts are used; exiting with status 137") == 1);
  }
}

TEST_CASE("launch --max-restarts on two nodes: a signal to one launcher ends the job on both, no restart", "[launch]") {
  RunOptions node1;
  node1.signal = SIGTERM;
  node1.signal_after = "] ready";
  node1.signal_after_count = 2;
  std::vector<RunResult> nodes = two_nodes({"--max-restarts", "2"}, {"trap"}, node1);
  for (int node = 0; node < 2; ++node) {
    const RunResult& r = nodes[node];
    INFO("node " << node << "\n" << output_of(r));
    CHECK_FALSE(r.timed_out);
    CHECK(r.status == 128 + SIGTERM);
    CHECK(count(r.err, "restart") == 0);
  }
  CHECK(count(nodes[0].err,
              "launch: node 1: its launcher received SIGTERM; sending SIGTERM to the 2 running workers") == 1);
}
