// ZeRO-2 on in-process thread ranks (ThreadProcessGroup): every scenario of zero2_scenarios.h
// on 2, 3 and 4 ranks (3 makes the shards uneven) matches single-process training, on the CPU
// and with rank r's group, replica and data on its own simulated device sim:r; and the
// collectives and errors behind it. zero2_multiprocess_test runs the scenarios across
// processes.
#include <catch2/catch.hpp>

#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/zero2/zero2_scenarios.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

// fn(group) on `world` thread ranks; each rank's error ("" if none) and collectives.
struct RankRun {
  std::string error;
  std::vector<std::string> collectives;
};
std::vector<RankRun> on_threads(int world, const std::function<std::string(std::shared_ptr<ProcessGroup>)>& fn,
                                bool sim = false) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(60));
  std::vector<RankRun> runs(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank, sim ? sim_device(rank) : kCPU);
    try {
      runs[rank].error = fn(group);
    } catch (const std::exception& e) {
      runs[rank].error = std::string("threw: ") + e.what();
    }
    runs[rank].collectives = group->history();
  });
  return runs;
}

void check_scenario(const std::string& name, int world, bool sim) {
  auto runs = on_threads(
      world, [&](std::shared_ptr<ProcessGroup> group) { return run_zero2_scenario(name, group); }, sim);
  for (int r = 0; r < world; ++r) {
    INFO(name << " on " << world << (sim ? " sim" : " cpu") << " ranks, rank " << r);
    CHECK(runs[r].error == "");
  }
}

TEST_CASE("ZeRO-2 on thread ranks: every scenario matches single-process training", "[zero2]") {
  for (const std::string& name : zero2_scenario_names()) {
    for (int world : {2, 3, 4}) check_scenario(name, world, false);
  }
}

TEST_CASE("ZeRO-2 on thread ranks with sim devices: every scenario matches single-process training", "[zero2][sim]") {
  for (const std::string& name : zero2_scenario_names()) {
    if (name.rfind("resnet20", 0) == 0) continue;  // the CPU run covers it; sim only adds time
    check_scenario(name, 3, true);
  }
}

}  // namespace
}  // namespace brisk::dist::testing
