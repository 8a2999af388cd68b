// How ProcessGroupMPI hands accelerator tensors to MPI, across processes that Open MPI's mpirun
// starts (mpi_transport_worker's scenarios), on the simulated device: direct mode (device
// pointers, as with a CUDA-aware library) gives the CPU's and staged mode's results bit for bit
// in every collective and makes no host copy; its blocking collectives still fail a missing rank
// within the timeout; forcing direct mode for CUDA with Debian's Open MPI, which is not
// CUDA-aware, is refused naming the variable and the library's answer. Skips, saying so, where
// mpirun is not installed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/tools/launch/process_runner.h"

namespace {

using namespace brisk::testing;

const char* kMpirun = "/usr/bin/mpirun";

bool have_mpirun() { return ::access(kMpirun, X_OK) == 0; }

RunResult mpirun(int nproc, const std::string& scenario,
                 const std::vector<std::pair<std::string, std::string>>& env = {}) {
  // As root (CI's containers) Open MPI wants both flags; --oversubscribe lets 4 ranks share 2 cores.
  std::vector<std::string> argv = {kMpirun, "--allow-run-as-root", "--oversubscribe",
                                   "-np",   std::to_string(nproc), "tests/distributed/mpi/mpi_transport_worker",
                                   scenario};
  RunOptions options;
  options.timeout = std::chrono::seconds(120);
  options.env = {{"OMPI_MCA_btl", "self,vader,tcp"}};
  for (const auto& entry : env) options.env.push_back(entry);
  for (const auto& entry : mpirun_env()) options.env.push_back(entry);
  return run_process(argv, options);
}

}  // namespace

TEST_CASE("mpi direct mode on sim: every collective equals staged mode's and the CPU's, without host copies",
          "[distributed]") {
  if (!have_mpirun()) {
    WARN("SKIPPED: " << kMpirun << " is not installed (tools/setup.sh installs openmpi-bin)");
    return;
  }
  for (int nproc : {2, 3, 4}) {
    INFO(nproc << " ranks");
    RunResult r = mpirun(nproc, "same_results");
    INFO(output_of(r));
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.status == 0);
    CHECK(count(r.out, "same_results ok") == nproc);
    CHECK(count(r.out, "direct copies 0") == nproc);
  }
}

TEST_CASE("mpi direct mode: a rank that never enters a blocking collective fails the others within the timeout",
          "[distributed]") {
  if (!have_mpirun()) return;
  RunResult r = mpirun(3, "timeout");
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.status != 0);
  std::string all = r.out + r.err;
  CHECK(count(all, "all_reduce #1 failed after") >= 1);
  CHECK(count(all, "MPI all_reduce: not complete after 2000 ms") >= 1);
  CHECK(count(all, "Ranks that never entered all_reduce #1: [2]") >= 1);
  CHECK(r.seconds < 30);  // 2 s timeout, 1 s linger, then mpirun stops the job
}

TEST_CASE("mpi: BRISK_MPI_CUDA_DIRECT=1 for a CUDA group with a library that is not CUDA-aware is refused, saying why",
          "[distributed]") {
  if (!have_mpirun()) return;
  RunResult r = mpirun(2, "refused", {{"BRISK_MPI_CUDA_DIRECT", "1"}});
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  REQUIRE(r.status == 0);
  CHECK(count(r.out, "refused ok") == 2);
  CHECK(count(r.out, "BRISK_MPI_CUDA_DIRECT=1 asks MPI to read and write cuda:0 memory directly, but this MPI library "
                     "is not CUDA-aware: MPIX_Query_cuda_support() returned 0") == 2);
}
