#pragma once
// Runs a test worker (one that takes worker_group.h's --device) on N ranks through the launcher
// (or mpirun), on the device of the test, and reads its per-rank result lines:
//
//   check_all_scenarios("tests/distributed/ddp/ddp_worker", {"equivalence", "rebuild"});
//   RunResult r = launch_workers("tests/distributed/ddp/ddp_worker", 2, {"uneven"});
//   CHECK(r.status != 0);
//
// Workers print "<name> ok ..." per passing scenario, which the launcher prefixes with
// "[rank r] ".
#include <chrono>
#include <string>
#include <vector>

#include "tests/tools/launch/run_launcher.h"

namespace brisk::testing {

// The device the workers of this test run on, for their --device option (worker_group.h): the
// test target's environment variable BRISK_TEST_WORKER_DEVICE (sim in the _sim_test twins,
// cuda and nccl in the gpu-tagged ones), else "cpu".
std::string test_worker_device();

// The world sizes among `wanted` that test_worker_device() can run: all of them, except for
// nccl (one rank per GPU), which keeps those up to the number of GPUs, or runs that number
// alone when none fits (world size 1 on a one-GPU machine). Empty when no GPU is visible.
std::vector<int> test_worlds(const std::vector<int>& wanted);

// Whether test_worker_device() can run two ranks; if not (nccl with fewer than two GPUs) a test
// that needs them WARNs that it is skipped.
bool two_ranks_possible();

// How the workers of this test start: the test target's BRISK_TEST_WORKER_STARTER, "mpirun"
// in the _mpi_test twins (Open MPI's mpirun, the workers on the MPI backend), else "launcher".
std::string test_worker_starter();

// Runs `worker --device <test_worker_device()> args...` on `world` ranks with run_launcher
// (which REQUIREs that it ends within `timeout`), or under mpirun with `--backend mpi` added
// (its output lines prefixed "[rank r] " as the launcher's). `worker` is its workspace path,
// listed in the test's data.
RunResult launch_workers(const std::string& worker, int world, const std::vector<std::string>& args,
                         std::chrono::seconds timeout = std::chrono::seconds(90));

// Runs the worker's scenario "all" on each world size of test_worlds(worlds) (at least one) and
// CHECKs that it succeeded, every rank printing "<name> ok" for each of `names`.
void check_all_scenarios(const std::string& worker, const std::vector<std::string>& names,
                         const std::vector<int>& worlds = {2, 3});

// The "[rank r] <name> ok" lines that do not appear exactly once in the output, for every
// rank r < world and name in `names`; empty when every scenario passed on every rank.
std::vector<std::string> missing_ok_lines(const RunResult& result, int world, const std::vector<std::string>& names);

}  // namespace brisk::testing
