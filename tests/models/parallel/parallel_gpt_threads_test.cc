// The GPT on every (dp, tp, pp) layout of 2, 4 and 8 thread ranks (tp 3: the vocabulary split
// unevenly) equals the unsplit GPT trained in one process on the global batch (float64, within
// 1e-12): the loss after each of three AdamW steps and every parameter after them, gathered
// whole, for GPipe and 1F1B, interleaved 1F1B where pp is 2 (two stages per rank), ZB-H1 on a
// few layouts, ZeRO-1 on the dp dimension, and gradient clipping by the whole model's norm (parallel_gpt_training.h).
// parallel_gpt_multiprocess_test runs layouts across processes.
#include <catch2/catch.hpp>

#include <array>
#include <set>

#include "models/gpt.h"
#include "models/parallel/parallel_gpt.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/mesh/thread_mesh.h"
#include "tests/models/parallel/parallel_gpt_training.h"
#include "tests/thread_checks.h"

namespace brisk::models::testing {
namespace {

using dist::pipeline::ScheduleKind;
using dist::testing::run_ranks;
using dist::testing::ThreadMeshWorlds;

void check_layout(const LayoutCase& c, const nn::StateDict& initial) {
  INFO(c.name());
  ThreadMeshWorlds worlds;
  run_ranks(c.world(), [&](int rank) {
    dist::DeviceMesh mesh(layout_dims(c), rank, c.world(), worlds.factory(rank));
    const std::string failure = train_and_compare(gpt_parallel_groups(mesh, worlds.factory(rank)), c, initial);
    if (!failure.empty()) brisk::testing::record_thread_failure(failure);
  });
}

TEST_CASE("The GPT on every layout of 2, 4 and 8 thread ranks trains as one process on the global batch") {
  const nn::StateDict initial = initial_state(test_config());
  const std::vector<std::array<int, 3>> layouts{{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {2, 1, 2}, {1, 2, 2},
                                                {1, 4, 1}, {1, 1, 4}, {2, 2, 2}, {1, 3, 1}, {1, 3, 2}};
  for (const auto& [dp, tp, pp] : layouts) {
    for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB}) {
      check_layout(LayoutCase{dp, tp, pp, kind}, initial);
    }
    if (pp == 2) check_layout(LayoutCase{dp, tp, pp, ScheduleKind::Interleaved1F1B, /*chunks=*/2}, initial);
  }
}

TEST_CASE("ZB-H1 (the backward split in input and weight passes) trains the GPT as one process") {
  const nn::StateDict initial = initial_state(test_config());
  for (const auto& [dp, tp, pp] : std::vector<std::array<int, 3>>{{1, 1, 2}, {2, 2, 2}, {1, 3, 2}, {1, 1, 4}}) {
    check_layout(LayoutCase{dp, tp, pp, ScheduleKind::ZeroBubbleH1}, initial);
  }
}

TEST_CASE("ZeRO-1 on the dp dimension trains the GPT as one process") {
  const nn::StateDict initial = initial_state(test_config());
  check_layout(LayoutCase{2, 1, 1, ScheduleKind::OneFOneB, 1, /*zero1=*/true}, initial);
  check_layout(LayoutCase{2, 2, 2, ScheduleKind::OneFOneB, 1, /*zero1=*/true}, initial);
}

TEST_CASE("Gradient clipping over the layout clips as one process does") {
  const nn::StateDict initial = initial_state(test_config());
  // 0.1 is below the tiny model's gradient norms: every step clips.
  for (const auto& [dp, tp, pp] : std::vector<std::array<int, 3>>{{2, 1, 1}, {2, 2, 2}, {1, 3, 2}}) {
    check_layout(LayoutCase{dp, tp, pp, ScheduleKind::OneFOneB, 1, false, /*max_grad_norm=*/0.1}, initial);
  }
}

TEST_CASE("Every parameter of the GPT lives on some rank, the tied embedding on the first and last stages") {
  const LayoutCase c{1, 2, 4};
  ThreadMeshWorlds worlds;
  std::vector<std::set<std::string>> keys(c.world());
  run_ranks(c.world(), [&](int rank) {
    dist::DeviceMesh mesh(layout_dims(c), rank, c.world(), worlds.factory(rank));
    GPTParallelGroups groups = gpt_parallel_groups(mesh, worlds.factory(rank));
    THREAD_CHECK((groups.embedding != nullptr) == (mesh.local_rank("pp") == 0 || mesh.local_rank("pp") == 3));
    if (groups.embedding) THREAD_CHECK(groups.embedding->size() == 2);
    ParallelGPT model(test_config(), groups);
    for (const auto& item : model->state_dict()) keys[rank].insert(item.key());
  });
  std::set<std::string> all;
  for (const auto& rank_keys : keys) all.insert(rank_keys.begin(), rank_keys.end());
  std::set<std::string> expected;
  for (const auto& item : GPT(test_config())->state_dict()) expected.insert(item.key());
  CHECK(all == expected);
  // Ranks 0, 1 (pp 0) embed and hold block 0; ranks 6, 7 (pp 3) hold block 3, ln_f and the head.
  CHECK(keys[0].count("wte.weight") == 1);
  CHECK(keys[0].count("wpe.weight") == 1);
  CHECK(keys[0].count("blocks.0.attn.query.weight") == 1);
  CHECK(keys[0].count("ln_f.weight") == 0);
  CHECK(keys[2].count("wte.weight") == 0);
  CHECK(keys[2].count("blocks.1.mlp.fc.weight") == 1);
  CHECK(keys[7].count("wte.weight") == 1);
  CHECK(keys[7].count("wpe.weight") == 0);
  CHECK(keys[7].count("ln_f.weight") == 1);
}

TEST_CASE("ParallelGPT refuses a tensor-parallel size that does not divide n_head") {
  auto world = std::make_shared<dist::testing::ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    auto group = std::make_shared<dist::testing::ThreadProcessGroup>(world, rank);
    THREAD_CHECK_THROWS_WITH(ParallelGPTBlock(GPTConfig().n_head(4).n_embd(24), group),
                             Catch::Contains("n_head 4 is not divisible by the tensor-parallel size 3"));
  });
}

}  // namespace
}  // namespace brisk::models::testing
