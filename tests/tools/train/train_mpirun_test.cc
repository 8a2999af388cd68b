// train started by Open MPI's mpirun instead of the launcher, on 256 Fashion-MNIST images over
// 2 ranks: over the MPI backend (no MASTER_ADDR: the MPI rendezvous brings up the store) and
// over Gloo with the ranks MPI gave (OMPI_COMM_WORLD_*); both end with the launcher's run's
// parameters and optimizer state, bit for bit. Skips, saying so, without mpirun.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/launch_train.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

namespace {

const char* kMpirun = "/usr/bin/mpirun";

RunResult mpirun_train(const std::vector<std::string>& mpirun_options, const std::vector<std::string>& args) {
  std::vector<std::string> argv{kMpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"};
  argv.insert(argv.end(), mpirun_options.begin(), mpirun_options.end());
  std::vector<std::string> command = train_command(args);
  argv.insert(argv.end(), command.begin(), command.end());
  RunOptions options;
  options.timeout = std::chrono::seconds(120);
  options.env = mpirun_env();
  RunResult r = run_process(argv, options);
  r.out += r.err;
  return r;
}

}  // namespace

TEST_CASE("train under mpirun: over MPI and over Gloo with MPI's ranks, bit for bit the launcher's run",
          "[distributed][train]") {
  if (::access(kMpirun, X_OK) != 0) {
    WARN("SKIPPED: " << kMpirun << " is not installed (tools/setup.sh installs openmpi-bin)");
    return;
  }
  const std::string dir = scratch_dir("train_mpirun");
  RunResult launcher = launch_train(2, {"--epochs", "1", "--save", dir + "/launcher.ckpt"});
  INFO(launcher.out);
  REQUIRE(launcher.status == 0);

  RunResult mpi = mpirun_train({}, {"--epochs", "1", "--dist-backend", "mpi", "--save", dir + "/mpi.ckpt"});
  INFO(mpi.out);
  REQUIRE(mpi.status == 0);
  CHECK_THAT(mpi.out, Contains("distributed: 2 processes over mpi, 16 examples per process"));
  require_same_training_state(dir + "/mpi.ckpt", dir + "/launcher.ckpt");

  // Gloo needs a store address: MASTER_ADDR and MASTER_PORT passed through mpirun (-x).
  const std::string port = std::to_string(20000 + ::getpid() % 20000);
  RunResult gloo = mpirun_train({"-x", "MASTER_ADDR=127.0.0.1", "-x", "MASTER_PORT=" + port},
                                {"--epochs", "1", "--save", dir + "/gloo.ckpt"});
  INFO(gloo.out);
  REQUIRE(gloo.status == 0);
  CHECK_THAT(gloo.out, Contains("distributed: 2 processes over gloo, 16 examples per process"));
  require_same_training_state(dir + "/gloo.ckpt", dir + "/launcher.ckpt");
}
