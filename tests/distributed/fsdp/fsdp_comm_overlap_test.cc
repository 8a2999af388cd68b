// dist::fsdp_comm_overlap on thread ranks: every unit's all_gathers and reduce_scatter of the
// last iteration are recorded (the MLP's three units, resharded after forward: a gather in
// forward, one in backward, one reduce_scatter each), the spans start afresh each iteration,
// and the metric splits the communication time into hidden and exposed.
#include <catch2/catch.hpp>

#include <vector>

#include "distributed/fsdp/fully_shard.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

TEST_CASE("fsdp_comm_overlap covers every unit's all_gathers and reduce_scatters of the last iteration", "[fsdp]") {
  FsdpScenario scenario;  // the MLP: units layers.0, layers.1, layers.2, and a root without parameters
  const int world = 2;
  std::vector<std::shared_ptr<nn::Module>> models;
  for (int rank = 0; rank < world; ++rank) models.push_back(make_fsdp_model(scenario, 1));
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  std::vector<std::vector<size_t>> spans(world);
  std::vector<CommOverlap> overlaps(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    nn::Module& model = *models[rank];
    std::vector<FSDPModule> units = shard_scenario_units(model, FullyShardOptions().group(group));
    CHECK(fsdp_comm_overlap(model).communication_ms == 0.0);  // nothing ran yet
    for (int iteration = 0; iteration < 3; ++iteration) {
      Tensor x = native::ones({3, 10}, kFloat64);
      nn::forward_naming_module(model, [&] { return model.forward(x); }).sum().backward();
      size_t count = 0;
      for (const FSDPModule& unit : units) count += unit.unit().collective_spans().size();
      spans[rank].push_back(count);
    }
    overlaps[rank] = fsdp_comm_overlap(model);
  });
  for (int rank = 0; rank < world; ++rank) {
    INFO("rank " << rank);
    CHECK(spans[rank] == std::vector<size_t>{9, 9, 9});
    const CommOverlap& overlap = overlaps[rank];
    CHECK(overlap.communication_ms > 0.0);
    CHECK(overlap.exposed_ms >= 0.0);
    CHECK(overlap.exposed_ms <= overlap.communication_ms);
    CHECK(overlap.hidden_ms + overlap.exposed_ms == Approx(overlap.communication_ms));
  }
}

}  // namespace
}  // namespace brisk::dist::testing
