// ZeRO-2 across processes started by the launcher over Gloo (and, in the _mpi twins, by
// mpirun over MPI), on 2, 3 and 4 ranks (2 and 3 under mpirun): every scenario of zero2_scenarios.h (training equal
// to one process on the global batch within 1e-12, gradient shards only after backward,
// no_sync, clip_grad_norm_, GradScaler, state dicts), and a rank with other parameter shapes
// named on every rank. The workers run on the CPU, in the _sim twins each on its own
// simulated device (test_worker_device()).
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"
#include "tests/distributed/zero2/zero2_scenarios.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/zero2/zero2_worker";

TEST_CASE("ZeRO-2 across processes: every scenario matches single-process training", "[zero2]") {
  // Under mpirun (the _mpi twins) 2 and 3 ranks: Open MPI's start-up is slower, and 4 ranks add
  // nothing the Gloo twins do not check.
  const std::vector<int> worlds =
      test_worker_starter() == "mpirun" ? std::vector<int>{2, 3} : std::vector<int>{2, 3, 4};
  check_all_scenarios(kWorker, brisk::dist::testing::zero2_scenario_names(), worlds);
}

TEST_CASE("ZeRO-2 across processes: a rank with other parameter shapes is named on every rank", "[zero2]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"shape_mismatch"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK_THAT(r.out + r.err, Contains("Zero2DataParallel: parameter layers.0.weight has shape [13, 8] float32 on "
                                     "rank 1 but [16, 8] float32 on rank 0"));
}

}  // namespace
