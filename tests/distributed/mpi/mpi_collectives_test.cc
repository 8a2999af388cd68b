// ProcessGroupMPI across processes that Open MPI's mpirun starts (no launcher, no MASTER_ADDR:
// the MPI rendezvous brings up the store): every collective, ReduceOp and dtype on 2, 3 and 4
// ranks, 16-bit reductions rounded once, async work and isend/irecv, subgroups (MPI's and a Gloo
// one beside), the store, and the failures: a rank that skips a collective, a size mismatch, a
// member that never creates its group. Skips, saying so, where mpirun is not installed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/tools/launch/process_runner.h"

namespace {

using namespace brisk::testing;

const char* kMpirun = "/usr/bin/mpirun";

bool have_mpirun() { return ::access(kMpirun, X_OK) == 0; }

RunResult mpirun(int nproc, const std::vector<std::string>& worker_args) {
  // As root (CI's containers) Open MPI wants both flags; --oversubscribe lets 4 ranks share 2 cores.
  std::vector<std::string> argv = {kMpirun, "--allow-run-as-root", "--oversubscribe",
                                   "-np",   std::to_string(nproc), "tests/distributed/collectives_worker_mpi"};
  argv.insert(argv.end(), worker_args.begin(), worker_args.end());
  RunOptions options;
  options.timeout = std::chrono::seconds(90);
  options.env = {{"BRISK_TEST_BACKEND", "mpi"}, {"OMPI_MCA_btl", "self,vader,tcp"}};
  for (const auto& entry : mpirun_env()) options.env.push_back(entry);
  return run_process(argv, options);
}

void require_all_ok(const RunResult& r, int nproc, const std::string& scenario) {
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  REQUIRE(r.status == 0);
  CHECK(count(r.out, scenario + " ok") == nproc);
}

}  // namespace

TEST_CASE("mpi: every collective, ReduceOp and dtype on 2, 3 and 4 ranks", "[distributed]") {
  if (!have_mpirun()) {
    WARN("SKIPPED: " << kMpirun << " is not installed (tools/setup.sh installs openmpi-bin)");
    return;
  }
  for (int nproc : {2, 3, 4}) {
    INFO(nproc << " ranks");
    require_all_ok(mpirun(nproc, {"collectives"}), nproc, "collectives");
  }
}

TEST_CASE("mpi: async work, isend/irecv, subgroups and the store", "[distributed]") {
  if (!have_mpirun()) return;
  for (const char* scenario : {"async", "subgroups", "store"}) {
    INFO(scenario);
    require_all_ok(mpirun(3, {scenario}), 3, scenario);
  }
}

TEST_CASE("mpi: a rank that never enters a collective fails the others within the timeout, named", "[distributed]") {
  if (!have_mpirun()) return;
  RunResult r = mpirun(3, {"timeout"});
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.status != 0);
  std::string all = r.out + r.err;
  CHECK(count(all, "all_reduce #1 failed after") >= 1);
  CHECK(count(all, "Ranks that never entered all_reduce #1: [2]") >= 1);
  CHECK(r.seconds < 20);  // 2 s timeout, 1 s linger, then mpirun stops the job
}

TEST_CASE("mpi: one rank all-reducing another size is a desync error naming it", "[distributed]") {
  if (!have_mpirun()) return;
  RunResult r = mpirun(3, {"desync"});
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.status != 0);
  std::string all = r.out + r.err;
  CHECK(count(all, "collective desync at #0: ranks [0, 2] called all_reduce #0(numel 4, float32, SUM); ranks [1] "
                   "called all_reduce #0(numel 5, float32, SUM); odd rank: 1") >= 1);
}

TEST_CASE("mpi: float16 and bfloat16 reductions are the float32 result rounded once", "[distributed]") {
  if (!have_mpirun()) return;
  require_all_ok(mpirun(4, {"rounded_once"}), 4, "rounded_once");
}

TEST_CASE("mpi: a Gloo subgroup beside the MPI default group, through the store the MPI rendezvous brought up",
          "[distributed]") {
  if (!have_mpirun()) return;
  require_all_ok(mpirun(3, {"gloo_beside"}), 3, "gloo_beside");
}

TEST_CASE("mpi: creating a group that a member never creates fails naming it, never hangs", "[distributed]") {
  if (!have_mpirun()) return;
  RunResult r = mpirun(3, {"missing_member"});
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.status != 0);
  CHECK(count(r.out + r.err,
              "creating the group: ranks [1] of 3 did not join within the rendezvous timeout (2000 ms)") >= 1);
  CHECK(r.seconds < 20);
}
