// ZeroRedundancyOptimizer across real processes over Gloo, started by the launcher, on 2 and
// 3 ranks: the scenarios of zero_worker.cc (training equal to one process with the plain
// optimizer, state held only for each rank's shard, consolidated state dicts and loading
// them), and a parameter mismatch failing with an error that names the rank.
#include <catch2/catch.hpp>

#include "tests/tools/launch/process_runner.h"

namespace {

using brisk::testing::count;
using brisk::testing::launcher_path;
using brisk::testing::run_process;
using brisk::testing::RunOptions;
using brisk::testing::RunResult;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/zero/zero_worker";

RunResult launch(int world, const std::string& scenario) {
  RunOptions options;
  options.timeout = std::chrono::seconds(90);
  RunResult result =
      run_process({launcher_path(), "--nproc-per-node", std::to_string(world), kWorker, scenario}, options);
  INFO("stdout:\n" << result.out << "\nstderr:\n" << result.err);
  REQUIRE_FALSE(result.timed_out);
  return result;
}

TEST_CASE("ZeRO across processes: training, shard state and state dicts match the plain optimizer", "[zero]") {
  for (int world : {2, 3}) {
    RunResult r = launch(world, "all");
    INFO("world " << world << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.status == 0);
    for (const std::string name : {"sgd", "adam", "state_dict"}) {
      for (int rank = 0; rank < world; ++rank) {
        CHECK(count(r.out, "[rank " + std::to_string(rank) + "] " + name + " ok") == 1);
      }
    }
  }
}

TEST_CASE("ZeRO across processes: a rank with other parameters is named", "[zero]") {
  RunResult r = launch(2, "mismatch");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.status != 0);
  CHECK_THAT(r.out + r.err, Contains("rank 1 has 5 parameters with 396 elements but rank 0 has 6 with 400"));
}

}  // namespace
