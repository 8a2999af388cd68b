// Sharded checkpoints across processes, started by the launcher over Gloo (or, in the _mpi
// twins, by mpirun over MPI): 4 processes save, 1, 2 and 3 processes load, each its own rows; a
// missing rank file fails every process, the one that needs it naming the file. On the CPU, and
// in the _sim twins each rank's tensors on its own simulated device.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "tests/distributed/testing/launch_workers.h"
#include "tests/scratch_files.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/checkpoint/sharded/sharded_checkpoint_worker";

TEST_CASE("sharded checkpoints across processes: 4 save, 1, 2 and 3 load their rows", "[checkpoint][sharded]") {
  const std::string dir = scratch_dir("sharded_mp_" + test_worker_device() + "_" + test_worker_starter()) + "/ckpt";
  RunResult saved = launch_workers(kWorker, 4, {"save:" + dir});
  INFO(output_of(saved));
  REQUIRE(saved.status == 0);
  CHECK(missing_ok_lines(saved, 4, {"save"}).empty());
  for (int world : {1, 2, 3}) {
    RunResult loaded = launch_workers(kWorker, world, {"load:" + dir});
    INFO(world << " ranks: " << output_of(loaded));
    CHECK(loaded.status == 0);
    CHECK(missing_ok_lines(loaded, world, {"load"}).empty());
  }

  // New rank 1 of 2 needs rows of old rank 2; new rank 0 does not, and fails because rank 1 did.
  std::remove((dir + "/rank-00002-of-00004.gen-1.safetensors").c_str());
  RunResult broken = launch_workers(kWorker, 2, {"load:" + dir});
  INFO(output_of(broken));
  CHECK(broken.status != 0);
  CHECK_THAT(broken.out + broken.err, Contains("the file of rank 2") && Contains("is missing"));
  CHECK_THAT(broken.out + broken.err, Contains("on rank 0: rank(s) 1 failed"));
}

}  // namespace
