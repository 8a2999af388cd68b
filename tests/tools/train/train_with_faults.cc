// train_with_faults: the training program with BRISK_TRAIN_FAULT's injector (fault_injection.h)
// watching its run, for the restart tests; the program users run has no such hooks.
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <optional>

#include "tensor/error.h"
#include "tests/tools/train/fault_injection.h"
#include "tools/train/run_training.h"

int main(int argc, char** argv) {
  // The rank the launcher gave this process (RANK), as dist::init_distributed reads it.
  const char* rank = std::getenv("RANK");
  std::optional<brisk::train::FaultInjector> fault;
  try {
    fault.emplace(brisk::train::FaultInjector::from_env(rank != nullptr ? std::atoi(rank) : 0));
  } catch (const brisk::Error& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  return brisk::train::run_training(argc, argv, &*fault);
}
