// ZeroRedundancyOptimizer across real processes over Gloo, started by the launcher, on 2 and
// 3 ranks: the scenarios of zero_worker.cc (training equal to one process with the plain
// optimizer, state held only for each rank's shard, consolidated state dicts and loading
// them), and a parameter mismatch failing with an error that names the rank. The workers run
// on the CPU, in the _sim_test twin each on its own simulated device, and in the gpu-tagged
// twins on CUDA over Gloo (ranks sharing the GPUs) or over NCCL (one rank per GPU)
// (test_worker_device()).
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using brisk::testing::launch_workers;
using brisk::testing::missing_ok_lines;
using brisk::testing::RunResult;
using brisk::testing::test_worker_device;
using brisk::testing::test_worlds;
using Catch::Matchers::Contains;

RunResult launch(int world, const std::string& scenario) {
  RunResult result = launch_workers("tests/distributed/zero/zero_worker", world,
                                    {"--device", test_worker_device(), scenario});
  INFO("stdout:\n" << result.out << "\nstderr:\n" << result.err);
  REQUIRE_FALSE(result.timed_out);
  return result;
}

TEST_CASE("ZeRO across processes: training, shard state and state dicts match the plain optimizer", "[zero]") {
  const std::vector<int> worlds = test_worlds({2, 3});
  REQUIRE_FALSE(worlds.empty());
  for (int world : worlds) {
    RunResult r = launch(world, "all");
    INFO("world " << world << " on " << test_worker_device() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.status == 0);
    CHECK(missing_ok_lines(r, world, {"sgd", "adam", "state_dict"}) == std::vector<std::string>{});
  }
}

TEST_CASE("ZeRO across processes: a rank with other parameters is named", "[zero]") {
  if (test_worlds({2}) != std::vector<int>{2}) {
    WARN("skipped: two ranks need two GPUs with --device " << test_worker_device());
    return;
  }
  RunResult r = launch(2, "mismatch");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.status != 0);
  CHECK_THAT(r.out + r.err, Contains("rank 1 has 5 parameters with 396 elements but rank 0 has 6 with 400"));
}

}  // namespace
