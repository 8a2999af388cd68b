#pragma once
// A launcher job of test_worker.cc's tiny workers, for the launcher's small tests:
//
//   RunResult r = launch({"--nproc-per-node", "2", kWorker, "env"});
#include <string>
#include <vector>

#include "tests/tools/launch/run_launcher.h"

namespace brisk::testing {

inline const std::string kWorker = "tests/tools/launch/test_worker";

// run_launcher with a timeout of 30 s: a hung job fails well within a small test's time.
inline RunResult launch(const std::vector<std::string>& args, RunOptions options = {}) {
  options.timeout = std::chrono::seconds(30);
  return run_launcher(args, options);
}

}  // namespace brisk::testing
