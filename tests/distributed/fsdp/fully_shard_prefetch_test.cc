// fully_shard's prefetching on thread ranks, read from ThreadProcessGroup::history(): the first
// iteration records the units' forward order and gathers each unit only when it runs; from the
// second on, the next unit's all_gather is issued before a unit's forward compute, and the
// previous unit's before its backward compute.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/mlp.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

int64_t all_gathers(const std::vector<std::string>& history, size_t since) {
  return std::count(history.begin() + since, history.end(), std::string("all_gather"));
}

TEST_CASE("fully_shard prefetches the next unit's all_gather in forward and backward", "[fsdp]") {
  FsdpScenario scenario;  // the MLP: units layers.0, layers.1, layers.2, and a root without parameters
  const int world = 2;
  std::vector<std::shared_ptr<nn::Module>> models;
  for (int rank = 0; rank < world; ++rank) models.push_back(make_fsdp_model(scenario, 1));
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  // Per iteration, on rank 0: how many all_gathers had been issued in this forward (backward)
  // when each layer's forward (backward) compute began.
  std::vector<std::vector<int64_t>> forward_counts(2), backward_counts(2);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    nn::Module& model = *models[rank];
    shard_scenario_units(model, FullyShardOptions().group(group));
    int iteration = 0;
    size_t forward_start = 0, backward_start = 0;
    for (const auto& layer : model.as<models::MLPImpl>()->layers->children()) {
      // Registered after the unit's hooks, so these run after its gathering and prefetching.
      layer->register_forward_pre_hook([&] {
        if (rank == 0) forward_counts[iteration].push_back(all_gathers(group->history(), forward_start));
      });
      layer->register_forward_hook([&](const std::vector<Tensor>& outputs) {
        outputs[0].register_hook([&](const Tensor&) {
          if (rank == 0) backward_counts[iteration].push_back(all_gathers(group->history(), backward_start));
          return Tensor();
        });
      });
    }
    for (iteration = 0; iteration < 2; ++iteration) {
      forward_start = group->history().size();
      Tensor x = native::ones({3, 10}, kFloat64);
      Tensor loss = nn::forward_naming_module(model, [&] { return model.forward(x); }).sum();
      backward_start = group->history().size();
      loss.backward();
    }
  });
  // Recording: each unit gathered as it runs. Forward: layers 0, 1, 2; backward: 2, 1, 0.
  CHECK(forward_counts[0] == std::vector<int64_t>{1, 2, 3});
  CHECK(backward_counts[0] == std::vector<int64_t>{1, 2, 3});
  // Prefetching: the root (no parameters) prefetches layers.0, which prefetches layers.1, ...;
  // in backward layers.2 prefetches layers.1, which prefetches layers.0.
  CHECK(forward_counts[1] == std::vector<int64_t>{2, 3, 3});
  CHECK(backward_counts[1] == std::vector<int64_t>{2, 3, 3});
}

}  // namespace
}  // namespace brisk::dist::testing
