#pragma once
// Runs a test worker on N ranks through the launcher and reads its per-rank result lines:
//
//   RunResult r = launch_workers("tests/distributed/ddp/ddp_worker", 2, {"--device", test_worker_device(), "all"});
//   REQUIRE_FALSE(r.timed_out);
//   CHECK(missing_ok_lines(r, 2, {"equivalence", "rebuild"}).empty());
//
// Workers print "<name> ok ..." per passing scenario, which the launcher prefixes with
// "[rank r] ".
#include <chrono>
#include <string>
#include <vector>

#include "tests/tools/launch/process_runner.h"

namespace brisk::testing {

// The device the workers of this test run on, for their --device option (worker_group.h): the
// test target's environment variable BRISK_TEST_WORKER_DEVICE (sim in the _sim_test twins,
// cuda and nccl in the gpu-tagged ones), else "cpu".
std::string test_worker_device();

// The world sizes among `wanted` that test_worker_device() can run: all of them, except for
// nccl (one rank per GPU), which keeps those up to the number of GPUs, or runs that number
// alone when none fits (world size 1 on a one-GPU machine). Empty when no GPU is visible.
std::vector<int> test_worlds(const std::vector<int>& wanted);

// `worker` is its workspace path (listed in the test's data); `args` follow it.
RunResult launch_workers(const std::string& worker, int world, const std::vector<std::string>& args,
                         std::chrono::seconds timeout = std::chrono::seconds(90));

// The "[rank r] <name> ok" lines that do not appear exactly once in the output, for every
// rank r < world and name in `names`; empty when every scenario passed on every rank.
std::vector<std::string> missing_ok_lines(const RunResult& result, int world, const std::vector<std::string>& names);

}  // namespace brisk::testing
