// dist::Join across real processes over Gloo, started by the launcher: the PyTorch cases of
// tests/fixtures/join.json on 2 and 3 ranks with DDP and SGD or ZeRO (join_worker.cc), the
// scenarios of join_scenarios.h, and throw_on_early_termination ending every rank, well
// within the timeout, with its error. The
// _sim_test twin runs each rank on its own simulated device, the gpu-tagged twins on CUDA
// over Gloo and over NCCL (test_worker_device()).
#include <catch2/catch.hpp>

#include "tests/distributed/join/join_cases.h"
#include "tests/distributed/join/join_scenarios.h"
#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;

const std::string kWorker = "tests/distributed/join/join_worker";

TEST_CASE("Join across processes: DDP with SGD and with ZeRO match PyTorch's Join on uneven inputs, and DDP's "
          "features under a Join match one process",
          "[join]") {
  const std::vector<int> worlds = test_worlds({2, 3});
  REQUIRE_FALSE(worlds.empty());
  for (int world : worlds) {
    std::vector<std::string> names;
    for (const std::string& name : brisk::dist::testing::join_case_names(world)) {
      names.push_back(name + "/sgd");
      names.push_back(name + "/zero");
    }
    for (const std::string& name : brisk::dist::testing::join_scenario_names()) names.push_back(name);
    RunResult r = launch_workers(kWorker, world, {"all"});
    INFO(output_of(r));
    CHECK(r.status == 0);
    CHECK(missing_ok_lines(r, world, names).empty());
  }
}

TEST_CASE("Join across processes: throw_on_early_termination ends every rank with its error", "[join]") {
  if (!two_ranks_possible()) return;
  RunResult r = launch_workers(kWorker, 3, {"throw"});
  INFO(output_of(r));
  CHECK(r.status != 0);
  CHECK(r.seconds < 30);
  CHECK_THAT(r.out + r.err, Contains("Join: rank 1 exhausted all inputs"));
  CHECK_THAT(r.out + r.err, Contains("Join: detected ranks that exhausted their inputs (1)"));
}

}  // namespace
