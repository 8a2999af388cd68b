// A test worker (parallel_gpt_multiprocess_test): the GPT on (dp, tp, pp) layouts of the
// processes' world, each against one process (parallel_gpt_training.h). On 8 processes
// (2, 2, 2) with 1F1B, interleaved 1F1B and ZeRO-1; on 4, (1, 2, 2) with GPipe and (2, 1, 2)
// with 1F1B. Prints "<layout> ok" per layout that equals one process.
#include <cstdio>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "distributed/mesh/device_mesh.h"
#include "tests/distributed/testing/worker_group.h"
#include "tests/models/parallel/parallel_gpt_training.h"

namespace brisk::models::testing {
namespace {

using dist::pipeline::ScheduleKind;

struct NamedLayout {
  std::string name;
  LayoutCase layout;
};

std::vector<NamedLayout> layouts_of(int world) {
  if (world == 8) {
    return {{"dp2_tp2_pp2_1f1b", {2, 2, 2, ScheduleKind::OneFOneB}},
            {"dp2_tp2_pp2_interleaved", {2, 2, 2, ScheduleKind::Interleaved1F1B, 2}},
            {"dp2_tp2_pp2_zero1", {2, 2, 2, ScheduleKind::OneFOneB, 1, true}}};
  }
  if (world == 4) {
    return {{"dp1_tp2_pp2_gpipe", {1, 2, 2, ScheduleKind::GPipe}}, {"dp2_tp1_pp2_1f1b", {2, 1, 2}}};
  }
  return {};
}

int run(const std::string& what, const std::shared_ptr<dist::ProcessGroup>& world) {
  const nn::StateDict initial = initial_state(test_config());
  int failures = 0;
  for (const NamedLayout& named : layouts_of(world->size())) {
    if (what != "all" && what != named.name) continue;
    dist::DeviceMesh mesh(layout_dims(named.layout));
    const std::string failure = train_and_compare(gpt_parallel_groups(mesh), named.layout, initial);
    if (failure.empty()) {
      std::printf("%s ok\n", named.name.c_str());
    } else {
      std::printf("%s FAILED: %s\n", named.name.c_str(), failure.c_str());
      ++failures;
    }
    std::fflush(stdout);
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace brisk::models::testing

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(
      argc, argv, "all|dp2_tp2_pp2_1f1b|dp2_tp2_pp2_interleaved|dp2_tp2_pp2_zero1|dp1_tp2_pp2_gpipe|dp2_tp1_pp2_1f1b",
      brisk::models::testing::run);
}
