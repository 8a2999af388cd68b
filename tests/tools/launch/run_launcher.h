#pragma once
// run_launcher: a multi-process test's job, run by the launcher (tools/launch) as a program.
// The one place where a job that outlives its timeout stops the test, with the job's output:
//
//   RunResult r = run_launcher({"--nproc-per-node", "2", "tests/distributed/launch_worker", "allreduce"});
//   INFO(output_of(r));
//   CHECK(r.status == 0);
//   CHECK(count(r.out, "[rank 1] rank 1 of 2: sum 3") == 1);
//
// Call it from the test's thread only (it uses Catch's REQUIRE).
#include <string>
#include <vector>

#include "tests/tools/launch/process_runner.h"

namespace brisk::testing {

// `args` are the launcher's: its options, then the worker's workspace path and arguments (the
// worker must be in the test's data). REQUIREs that the job ended within options.timeout.
RunResult run_launcher(const std::vector<std::string>& args, const RunOptions& options = {});

}  // namespace brisk::testing
