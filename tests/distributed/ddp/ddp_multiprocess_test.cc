// DistributedDataParallel across real processes over Gloo, started by the launcher: every
// scenario of scenarios.h on 2 and 3 ranks (parameters after k steps equal one process with
// batch N*B, all ranks bitwise equal), and the misuse cases ending, well within the
// timeout, with errors that name the rank or parameter. The workers run on the CPU, in the
// _sim_test twin each on its own simulated device, and in the gpu-tagged twins on CUDA over
// Gloo (ranks sharing the GPUs) or over NCCL (one rank per GPU, so world size 1 on one GPU)
// (test_worker_device()).
#include <catch2/catch.hpp>

#include "tests/distributed/ddp/scenarios.h"
#include "tests/distributed/testing/launch_workers.h"

namespace {

using brisk::testing::launch_workers;
using brisk::testing::missing_ok_lines;
using brisk::testing::RunResult;
using brisk::testing::test_worker_device;
using brisk::testing::test_worlds;

// The misuse cases need two ranks; an NCCL test on one GPU cannot start them.
bool two_ranks_possible() {
  if (test_worlds({2}) == std::vector<int>{2}) return true;
  WARN("skipped: two ranks need two GPUs with --device " << test_worker_device());
  return false;
}
using Catch::Matchers::Contains;

RunResult launch(int world, const std::string& scenario) {
  RunResult result = launch_workers("tests/distributed/ddp/ddp_worker", world,
                                    {"--device", test_worker_device(), scenario});
  INFO("stdout:\n" << result.out << "\nstderr:\n" << result.err);
  REQUIRE_FALSE(result.timed_out);
  return result;
}

TEST_CASE("DDP across processes: every scenario matches single-process training", "[ddp]") {
  const std::vector<int> worlds = test_worlds({2, 3});
  REQUIRE_FALSE(worlds.empty());
  for (int world : worlds) {
    RunResult r = launch(world, "all");
    INFO("world " << world << " on " << test_worker_device() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.status == 0);
    CHECK(missing_ok_lines(r, world, brisk::dist::testing::scenario_names()) == std::vector<std::string>{});
  }
}

TEST_CASE("DDP across processes: one rank with one batch fewer fails every rank, naming it", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch(2, "uneven");
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  CHECK_THAT(r.out + r.err, Contains("uneven inputs: rank 1 after 2 training iterations ran out of inputs"));
}

TEST_CASE("DDP across processes: mismatched shapes and unused parameters are named", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult shapes = launch(2, "shape_mismatch");
  CHECK(shapes.status != 0);
  CHECK_THAT(shapes.out + shapes.err, Contains("parameter layers.1.weight has shape [13, 16] float32 on rank 1"));
  RunResult unused = launch(2, "unused_error");
  CHECK(unused.status != 0);
  CHECK_THAT(unused.out + unused.err, Contains("branch.weight (index 4), branch.bias (index 5)"));
}

}  // namespace
