// Checkpoints across layouts, in float64 on thread ranks: the unsplit model and AdamW state that
// (2, 2, 2) gathers after two steps (gather_gpt_state.h) loads into (1, 1, 1), (1, 2, 1) and
// (2, 1, 2) with ZeRO-1 (split on load, moments like their parameters), and one more step ends,
// gathered again, where the uninterrupted one-process run ends: every parameter and optimizer
// tensor within 1e-12. The one-process state loads into a layout as well.
#include <catch2/catch.hpp>

#include "models/parallel/gather_gpt_state.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/mesh/thread_mesh.h"
#include "tests/models/parallel/parallel_gpt_training.h"
#include "tests/thread_checks.h"

namespace brisk::models::testing {
namespace {

using dist::pipeline::ScheduleKind;
using dist::testing::run_ranks;
using dist::testing::ThreadMeshWorlds;

double max_difference(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

// Trains steps [first, last) of `c` from `start` (or from the initial state when `start` is
// empty) and returns the gathered state.
FullGPTState run_layout(const LayoutCase& c, const nn::StateDict& initial, const FullGPTState* start, int first,
                        int last) {
  ThreadMeshWorlds worlds;
  FullGPTState gathered;
  run_ranks(c.world(), [&](int rank) {
    dist::DeviceMesh mesh(layout_dims(c), rank, c.world(), worlds.factory(rank));
    LayoutTraining run(gpt_parallel_groups(mesh, worlds.factory(rank)), c, initial);
    if (start != nullptr) run.load(*start);
    for (int step = first; step < last; ++step) run.step(step);
    FullGPTState state = run.gather();
    if (is_gathering_rank(*run.model)) {
      gathered = std::move(state);
    } else {
      THREAD_CHECK(state.model.is_empty());
      THREAD_CHECK(state.optimizer.tensors.empty());
    }
  });
  return gathered;
}

void check_equal(const FullGPTState& got, const GPT& model, const optim::OptimizerState& optimizer) {
  const nn::StateDict expected = model->state_dict();
  REQUIRE(got.model.keys() == expected.keys());
  for (const auto& item : expected) {
    INFO(item.key());
    CHECK(max_difference(got.model[item.key()], item.value()) <= 1e-12);
  }
  REQUIRE(got.optimizer.tensors.size() == optimizer.tensors.size());
  for (const auto& [key, tensor] : optimizer.tensors) {
    INFO(key);
    REQUIRE(got.optimizer.tensors.count(key) == 1);
    CHECK(max_difference(got.optimizer.tensors.at(key), tensor) <= 1e-12);
  }
  CHECK(got.optimizer.param_groups == optimizer.param_groups);
}

TEST_CASE("A (2, 2, 2) training state resumes on other layouts and ends where one process ends") {
  const nn::StateDict initial = initial_state(test_config());
  OneProcessTraining reference(initial);
  for (int step = 0; step < 2; ++step) reference.step(step);
  const FullGPTState saved = run_layout(LayoutCase{2, 2, 2}, initial, nullptr, 0, 2);
  SECTION("the gathered state is one process's after the same steps") {
    check_equal(saved, reference.model, reference.optimizer_state());
  }
  reference.step(2);
  for (const LayoutCase& c :
       {LayoutCase{1, 1, 1}, LayoutCase{1, 2, 1}, LayoutCase{2, 1, 2, ScheduleKind::GPipe, 1, /*zero1=*/true}}) {
    INFO("resumed on " << c.name());
    check_equal(run_layout(c, initial, &saved, 2, 3), reference.model, reference.optimizer_state());
  }
}

TEST_CASE("A one-process training state resumes on (1, 3, 2) (an uneven vocabulary)") {
  const nn::StateDict initial = initial_state(test_config());
  OneProcessTraining reference(initial);
  reference.step(0);
  const FullGPTState saved{reference.model->state_dict(), reference.optimizer_state()};
  FullGPTState copy;
  for (const auto& item : saved.model) copy.model.insert(item.key(), item.value().clone());
  copy.optimizer.param_groups = saved.optimizer.param_groups;
  for (const auto& [key, tensor] : saved.optimizer.tensors) copy.optimizer.tensors[key] = tensor.clone();
  reference.step(1);
  check_equal(run_layout(LayoutCase{1, 3, 2}, initial, &copy, 1, 2), reference.model, reference.optimizer_state());
}

}  // namespace
}  // namespace brisk::models::testing
