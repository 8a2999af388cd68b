// A test worker (tp_multiprocess_test): every scenario of tp_scenarios.h over the default
// group of the processes, with SGD and AdamW. Prints "<scenario>_<optimizer> ok max_diff=..."
// per scenario.
#include <cstdio>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "tests/distributed/tensor_parallel/tp_scenarios.h"
#include "tests/distributed/testing/worker_group.h"

namespace brisk::dist::testing {
namespace {

int run(const std::string& what, const std::shared_ptr<ProcessGroup>& group) {
  int failures = 0;
  for (const std::string& scenario : tp_scenario_names()) {
    if (what != "all" && what != scenario) continue;
    for (const std::string optimizer : {"sgd", "adamw"}) {
      const double diff = run_tp_scenario(scenario, optimizer, group);
      const bool ok = diff >= 0 && diff < 1e-12;
      std::printf("%s_%s %s max_diff=%.3g\n", scenario.c_str(), optimizer.c_str(), ok ? "ok" : "FAILED", diff);
      std::fflush(stdout);
      failures += ok ? 0 : 1;
    }
  }
  destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace brisk::dist::testing

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|mlp|mlp_sp|lm|lm_sp", brisk::dist::testing::run);
}
