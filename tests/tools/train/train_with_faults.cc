// train_with_faults: the training program with BRISK_TRAIN_FAULT's injector (fault_injection.h)
// watching its run, for the restart tests; the program users run has no such hooks.
#include <spdlog/spdlog.h>

#include <optional>

#include "distributed/job_environment.h"
#include "tensor/error.h"
#include "tests/tools/train/fault_injection.h"
#include "tools/train/run_training.h"

int main(int argc, char** argv) {
  std::optional<brisk::train::FaultInjector> fault;
  try {
    // The rank its starter gave this process (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK), as
    // dist::init_distributed reads it.
    const int rank = brisk::dist::read_job_environment().rank.value;
    fault.emplace(brisk::train::FaultInjector::from_env(rank >= 0 ? rank : 0));
  } catch (const brisk::Error& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  return brisk::train::run_training(argc, argv, &*fault);
}
