// DistributedDataParallel across real processes over Gloo, started by the launcher: every
// scenario of scenarios.h on 2 and 3 ranks (parameters after k steps equal one process with
// batch N*B, all ranks bitwise equal), and the misuse cases ending, well within the
// timeout, with errors that name the rank or parameter. The workers run on the CPU, in the
// _sim_test twin each on its own simulated device, and in the gpu-tagged twins on CUDA over
// Gloo (ranks sharing the GPUs) or over NCCL (one rank per GPU, so world size 1 on one GPU)
// (test_worker_device()).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/distributed/ddp/scenarios.h"
#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/ddp/ddp_worker";

TEST_CASE("DDP across processes: every scenario matches single-process training", "[ddp]") {
  check_all_scenarios(kWorker, brisk::dist::testing::scenario_names());
}

TEST_CASE("DDP across processes: one rank with one batch fewer fails every rank, naming it", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"uneven"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  CHECK_THAT(r.out + r.err, Contains("uneven inputs: rank 1 after 2 training iterations ran out of inputs"));
}

TEST_CASE("DDP across processes: mismatched shapes and unused parameters are named", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult shapes = launch_workers(kWorker, 2, {"shape_mismatch"});
  CHECK(shapes.status != 0);
  CHECK_THAT(shapes.out + shapes.err, Contains("parameter layers.1.weight has shape [13, 16] float32 on rank 1"));
  RunResult unused = launch_workers(kWorker, 2, {"unused_error"});
  CHECK(unused.status != 0);
  CHECK_THAT(unused.out + unused.err, Contains("branch.weight (index 4), branch.bias (index 5)"));
}

TEST_CASE("DDP across processes: calling the wrapped module instead of DDP fails backward on every rank", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"wrapped_forward"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  for (int rank : {0, 1}) {
    CHECK_THAT(r.out + r.err, Contains(fmt::format("but DDP's forward did not run in this iteration (rank {})", rank)));
  }
}

TEST_CASE("DDP across processes: one rank calling the wrapped module gets the error; the others fail too", "[ddp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"wrapped_forward_rank1"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 20);
  CHECK_THAT(r.out + r.err, Contains("but DDP's forward did not run in this iteration (rank 1)"));
}

}  // namespace
