// One rank of a ZeRO-2 scenario across processes, started by the launcher (or mpirun):
//
//   launch --nproc-per-node 3 tests/distributed/zero2/zero2_worker [--device cpu|sim|cuda|nccl] all
//
// `all` runs every scenario of zero2_scenarios.h in one process group and prints
// "<scenario> ok" for each that matches the single-process reference, "<scenario> FAILED
// <what differs>" otherwise; the exit status is 0 only when all passed. `shape_mismatch`:
// rank 1 wraps an MLP with another hidden width, and every rank must fail naming it.
#include <cstdio>
#include <string>

#include "distributed/distributed.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "tests/distributed/testing/worker_group.h"
#include "tests/distributed/zero2/zero2_scenarios.h"

namespace {

using namespace brisk;

int run(const std::string& what, const std::shared_ptr<dist::ProcessGroup>& group) {
  if (what == "shape_mismatch") {
    models::MLP model(models::MLPOptions(8, 4).hidden({group->rank() == 1 ? 13 : 16}));
    model->to(group->device());
    auto zero2 = dist::Zero2DataParallel(model, group);
    std::printf("shape_mismatch ended without an error\n");
    return 1;
  }
  std::vector<std::string> names{what};
  if (what == "all") names = dist::testing::zero2_scenario_names();
  int failures = 0;
  for (const std::string& name : names) {
    const std::string failure = dist::testing::run_zero2_scenario(name, group);
    std::printf("%s %s %s\n", name.c_str(), failure.empty() ? "ok" : "FAILED", failure.c_str());
    std::fflush(stdout);
    failures += failure.empty() ? 0 : 1;
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|shape_mismatch|<scenario>", run);
}
