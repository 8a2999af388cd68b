// dist::fully_shard on thread ranks (ThreadProcessGroup), on the CPU and with each rank on its
// own simulated device: N ranks on their slices of the global batch equal one process on the
// global batch (float64, within 1e-12), for the MLP and ResNet-20 with SGD (momentum) and
// Adam, with the parameters sharded and the gathered ones freed outside each unit's forward
// and backward (train_fully_sharded's checks).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tests/distributed/ddp/thread_process_group.h"
#include "nn/nn.h"
#include "tensor/memory.h"
#include "tensor/native/ops.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

// fn(rank, group) on `world` thread ranks, rank r's group on sim:r when `sim`; returns each
// rank's error ("" if none). The ranks record, the test thread checks.
std::vector<std::string> on_threads(int world, bool sim,
                                    const std::function<void(int, std::shared_ptr<ProcessGroup>)>& fn) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  std::vector<std::string> errors(world);
  run_ranks(world, [&](int rank) {
    try {
      fn(rank, std::make_shared<ThreadProcessGroup>(shared, rank, sim ? sim_device(rank) : kCPU));
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  return errors;
}

void check_equivalence(const FsdpScenario& scenario, int world, bool sim) {
  INFO(describe(scenario) << " world=" << world << (sim ? " sim" : " cpu"));
  std::shared_ptr<nn::Module> reference_model = make_fsdp_model(scenario, /*seed=*/1);
  const TrainResult reference = train_reference(scenario, *reference_model);
  // Rank 0 starts from the reference's initialization, the others from their own: fully_shard
  // shards rank 0's values.
  std::vector<std::shared_ptr<nn::Module>> models;
  for (int rank = 0; rank < world; ++rank) {
    models.push_back(make_fsdp_model(scenario, rank == 0 ? 1 : 50 + rank, sim ? sim_device(rank) : kCPU));
  }
  std::vector<TrainResult> results(world);
  std::vector<std::string> errors = on_threads(world, sim, [&](int rank, std::shared_ptr<ProcessGroup> group) {
    results[rank] = train_fully_sharded(scenario, *models[rank], group);
  });
  REQUIRE(errors == std::vector<std::string>(world, ""));
  for (int step = 0; step < scenario.steps; ++step) {
    double global_loss = 0.0;
    for (const TrainResult& r : results) global_loss += r.losses[step] / world;
    CHECK(std::abs(global_loss - reference.losses[step]) < 1e-12);
  }
  for (int rank = 0; rank < world; ++rank) {
    INFO("rank " << rank);
    CHECK(max_abs_difference(results[rank].params, reference.params) < 1e-12);
  }
}

TEST_CASE("fully_shard: N ranks equal one process on the global batch, MLP", "[fsdp]") {
  FsdpScenario scenario;
  scenario.model = FsdpModel::kMLP;
  scenario.optimizer = GENERATE(FsdpOptimizer::kSGDMomentum, FsdpOptimizer::kAdam);
  const int world = GENERATE(2, 3, 4);
  const bool sim = GENERATE(false, true);
  check_equivalence(scenario, world, sim);
}

TEST_CASE("fully_shard: N ranks equal one process on the global batch, ResNet-20", "[fsdp]") {
  FsdpScenario scenario;
  scenario.model = FsdpModel::kResNet20;
  scenario.optimizer = GENERATE(FsdpOptimizer::kSGDMomentum, FsdpOptimizer::kAdam);
  const int world = GENERATE(2, 3, 4);
  const bool sim = GENERATE(false, true);
  check_equivalence(scenario, world, sim);
}

TEST_CASE("fully_shard: N ranks equal one process on the global batch, ResNet-18 (the largest model)", "[fsdp]") {
  FsdpScenario scenario;
  scenario.model = FsdpModel::kResNet18;
  scenario.optimizer = GENERATE(FsdpOptimizer::kSGDMomentum, FsdpOptimizer::kAdam);
  const int world = GENERATE(2, 3, 4);
  const bool sim = GENERATE(false, true);
  check_equivalence(scenario, world, sim);
}

TEST_CASE("fully_shard: reshard_after_forward=false keeps the gathered parameters until backward, same results",
          "[fsdp]") {
  FsdpScenario scenario;
  scenario.reshard_after_forward = false;
  scenario.model = GENERATE(FsdpModel::kMLP, FsdpModel::kResNet20);
  scenario.optimizer = GENERATE(FsdpOptimizer::kSGDMomentum, FsdpOptimizer::kAdam);
  check_equivalence(scenario, /*world=*/3, /*sim=*/false);
}

TEST_CASE("fully_shard: cpu_offload keeps shards and gradients on the CPU, computes on the device, same results",
          "[fsdp]") {
  FsdpScenario scenario;
  scenario.cpu_offload = true;
  scenario.model = GENERATE(FsdpModel::kMLP, FsdpModel::kResNet20);
  scenario.optimizer = FsdpOptimizer::kAdam;
  const int world = GENERATE(2, 3);
  check_equivalence(scenario, world, /*sim=*/true);
}

TEST_CASE("fully_shard: freeing a unit's gathered parameters returns their bytes to the allocator", "[fsdp]") {
  // One rank, so that no other thread allocates meanwhile: the CPU allocator's figure drops by
  // the unit's gathered parameters when its forward ends (the unit's hook runs between these).
  FsdpScenario scenario;
  std::shared_ptr<nn::Module> model = make_fsdp_model(scenario, 1);
  auto world = std::make_shared<ThreadWorld>(1);
  auto group = std::make_shared<ThreadProcessGroup>(world, 0);
  std::shared_ptr<nn::Module> layer = model->modules()[2];  // layers.0: Linear(10, 16)
  REQUIRE(layer->parameters().size() == 2);
  size_t before = 0, after = 0;
  layer->register_forward_hook([&](const std::vector<Tensor>&) { before = memory_allocated(kCPU); });
  std::vector<FSDPModule> units = shard_scenario_units(*model, FullyShardOptions().group(group));
  layer->register_forward_hook([&](const std::vector<Tensor>&) { after = memory_allocated(kCPU); });
  Tensor loss = nn::forward_naming_module(*model, [&] { return model->forward(native::ones({4, 10}, kFloat64)); });
  const size_t gathered_bytes = (16 * 10 + 16) * sizeof(double);
  CHECK(before - after >= gathered_bytes);
  CHECK(before - after < 2 * gathered_bytes);  // the allocator's size class, not more
  CHECK(units[0].unit().unsharded_bytes() == 0);
}

TEST_CASE("fully_shard: errors name the rank and the parameter", "[fsdp]") {
  using Catch::Matchers::Contains;
  FsdpScenario scenario;
  SECTION("a parameter shaped differently on one rank") {
    std::vector<std::shared_ptr<nn::Module>> models;
    for (int rank = 0; rank < 2; ++rank) {
      models.push_back(std::make_shared<nn::LinearImpl>(rank == 1 ? 5 : 4, 3));
    }
    auto errors = on_threads(2, false, [&](int rank, std::shared_ptr<ProcessGroup> group) {
      fully_shard(*models[rank], FullyShardOptions().group(group));
    });
    for (const std::string& e : errors) {
      CHECK_THAT(e, Contains("rank 1") && Contains("weight") && Contains("[3, 5]") && Contains("[3, 4]"));
    }
  }
  SECTION("a unit called through forward() directly, skipping its hooks") {
    std::vector<std::shared_ptr<nn::Module>> models;
    for (int rank = 0; rank < 2; ++rank) models.push_back(make_fsdp_model(scenario, 1));
    auto errors = on_threads(2, false, [&](int rank, std::shared_ptr<ProcessGroup> group) {
      fully_shard(*models[rank], FullyShardOptions().group(group));
      models[rank]->forward(native::ones({2, 10}, kFloat64));
    });
    // The shards (layers.1.weight: 6 of its 12 rows) reach the layers; the error names the layer.
    for (const std::string& e : errors) CHECK_THAT(e, Contains("(weight [6, 16])") && Contains("in 1: Linear"));
  }
  SECTION("a module made a unit twice") {
    auto model = make_fsdp_model(scenario, 1);
    auto errors = on_threads(1, false, [&](int, std::shared_ptr<ProcessGroup> group) {
      fully_shard(*model, FullyShardOptions().group(group));
      fully_shard(*model, FullyShardOptions().group(group));
    });
    CHECK_THAT(errors[0], Contains("fully_shard: this MLP is a unit already"));
  }
}

}  // namespace
}  // namespace brisk::dist::testing
