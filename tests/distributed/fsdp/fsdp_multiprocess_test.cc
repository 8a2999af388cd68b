// dist::fully_shard across real processes over Gloo, started by the launcher (or, in the
// _mpi_test twin, by mpirun over MPI), on 2 and 3 ranks (3: uneven shards): the scenarios of
// fsdp_worker.cc (training equal to one process on the global batch), and a parameter mismatch
// failing with an error that names the rank. The workers run on the CPU and, in the _sim_test
// twin, each on its own simulated device; the gpu-tagged twins on CUDA over Gloo and over NCCL
// (test_worker_device()).
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/fsdp/fsdp_worker";

TEST_CASE("fully_shard across processes: training equals one process on the global batch", "[fsdp]") {
  check_all_scenarios(kWorker, {"mlp_sgd", "mlp_adam", "resnet_adam"});
}

TEST_CASE("fully_shard across processes: a rank with another parameter shape is named", "[fsdp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"mismatch"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK_THAT(r.out + r.err, Contains("rank 1") && Contains("weight") && Contains("[3, 5]"));
}

TEST_CASE("fully_shard across processes: a rank running a unit once more fails every rank, naming unit and rank",
          "[fsdp]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 2, {"desync"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  // The first rank to fail ends the job (the launcher stops the others), so the output has its
  // error: its unit and rank, and the group's desync report naming both ranks' calls.
  CHECK_THAT(r.out + r.err, (Contains("the all_gather of unit b failed on rank 0") ||
                             Contains("the all_gather of unit a failed on rank 1")) &&
                                Contains("ranks [0] called all_gather") && Contains("ranks [1] called all_gather"));
}

}  // namespace
