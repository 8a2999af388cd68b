// One rank of a DistributedDataParallel scenario across processes, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/ddp/ddp_worker [--device cpu|sim|cuda|nccl] all
//
// `all` runs every scenario of scenarios.h in one process group and prints
// "<scenario> ok max_diff=<x>" for each that matches the single-process reference with
// every rank's parameters bitwise equal, "<scenario> FAILED ..." otherwise; an error
// scenario (shape_mismatch, unused_error, uneven, wrapped_forward, wrapped_forward_rank1,
// second_backward) prints the error it ends with. The exit status is 0 only when everything
// passed (an error scenario never passes). With --device sim each rank's group, replica and
// data are on its own simulated device sim:LOCAL_RANK.
#include <cstdio>
#include <string>

#include "distributed/distributed.h"
#include "tests/distributed/ddp/scenarios.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk::dist;

int run(const std::string& what, const std::shared_ptr<ProcessGroup>& group) {
  if (what == "shape_mismatch" || what == "unused_error" || what == "uneven" || what == "wrapped_forward" ||
      what == "wrapped_forward_rank1" || what == "second_backward") {
    brisk::dist::testing::run_error_scenario(what, group);
    std::printf("%s ended without an error\n", what.c_str());
    return 1;
  }
  std::vector<std::string> names{what};
  if (what == "all") names = brisk::dist::testing::scenario_names();
  int failures = 0;
  for (const std::string& name : names) {
    auto outcome = brisk::dist::testing::run_scenario(name, group);
    bool ok = outcome.identical && outcome.max_diff < brisk::dist::testing::scenario_tolerance(name);
    std::printf("%s %s max_diff=%.3g identical=%d\n", name.c_str(), ok ? "ok" : "FAILED", outcome.max_diff,
                outcome.identical ? 1 : 0);
    std::fflush(stdout);
    failures += ok ? 0 : 1;
  }
  destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return brisk::dist::testing::worker_main(argc, argv, "all|<scenario>", run); }
