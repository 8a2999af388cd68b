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

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/zero/zero_worker";

TEST_CASE("ZeRO across processes: training, shard state and state dicts match the plain optimizer", "[zero]") {
  check_all_scenarios(kWorker, {"sgd", "adam", "state_dict"});
}

TEST_CASE("ZeRO across processes: a rank with other parameters is named", "[zero]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"mismatch"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK_THAT(r.out + r.err, Contains("rank 1 has 5 parameters with 396 elements but rank 0 has 6 with 400"));
}

}  // namespace
