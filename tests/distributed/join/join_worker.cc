// One rank of the Join cases across processes, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/join/join_worker [--device cpu|sim] all|throw
//
// `all` runs every case of tests/fixtures/join.json for this world size (join_cases.h), with
// SGD and with ZeRO, and prints "<case>/<optimizer> ok ..." for each that matches PyTorch
// within 1e-12, "<case>/<optimizer> FAILED ..." otherwise; the exit status is 0 only when all
// passed; then the scenarios of join_scenarios.h against one process ("<scenario> ok ...",
// within 1e-5). `throw`: rank 1 takes one step, the others three, under throw_on_early_termination;
// every rank ends with its error.
#include <algorithm>
#include <cstdio>
#include <string>

#include "distributed/distributed.h"
#include "tests/distributed/join/join_cases.h"
#include "tests/distributed/join/join_scenarios.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk::dist;

int run(const std::string& what, const std::shared_ptr<ProcessGroup>& group) {
  if (what == "throw") {
    brisk::dist::testing::train_in_join(group, group->rank() == 1 ? 1 : 3,
                                        JoinOptions().throw_on_early_termination(true));
    std::printf("throw ended without an error\n");
    return 1;
  }
  int failures = 0;
  for (const std::string& name : brisk::dist::testing::join_case_names(group->size())) {
    for (const std::string optimizer : {"sgd", "zero"}) {
      auto outcome = brisk::dist::testing::run_join_case(name, optimizer, group);
      const double worst = std::max({outcome.max_grad_diff, outcome.max_param_diff, outcome.max_final_grad_diff});
      const bool ok = worst < 1e-12;
      std::printf("%s/%s %s iterations=%d max_diff=%.3g\n", name.c_str(), optimizer.c_str(), ok ? "ok" : "FAILED",
                  outcome.iterations, worst);
      std::fflush(stdout);
      failures += ok ? 0 : 1;
    }
  }
  for (const std::string& name : brisk::dist::testing::join_scenario_names()) {
    const double diff = brisk::dist::testing::run_join_scenario(name, group);
    const bool ok = diff < 1e-5;
    std::printf("%s %s max_diff=%.3g\n", name.c_str(), ok ? "ok" : "FAILED", diff);
    std::fflush(stdout);
    failures += ok ? 0 : 1;
  }
  destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return brisk::dist::testing::worker_main(argc, argv, "all|throw", run); }
