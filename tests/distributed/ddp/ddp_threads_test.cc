// DistributedDataParallel over in-process ranks (ThreadProcessGroup): every scenario of
// scenarios.h on 1, 2 and 3 ranks (N ranks with batch B end with the parameters of one
// process trained with batch N*B, all ranks bitwise equal), the bucket layouts and
// collectives behind them, and the errors for mismatched shapes, unused parameters, uneven
// inputs and forwards that went around DDP. The [sim] cases run them with rank r's group, replica and data on its own
// simulated device sim:r, where the group refuses any other device's tensors and host code
// cannot read device memory. ddp_multiprocess_test runs the same scenarios across real
// processes.
#include <catch2/catch.hpp>

#include <set>

#include "distributed/ddp/distributed_data_parallel.h"
#include "models/mlp.h"
#include "tests/distributed/ddp/scenarios.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

struct RankResult {
  Outcome outcome;
  std::vector<std::string> collectives;
  std::string error;
};

// Where rank r's group and replica live: the CPU, or its own simulated device sim:r.
enum class Place { kCpu, kSim };
Device device_of(Place place, int rank) { return place == Place::kSim ? sim_device(rank) : kCPU; }

// Runs fn on `world` thread ranks; each rank's exception is recorded, not rethrown.
std::vector<RankResult> run_world(int world, const std::function<Outcome(std::shared_ptr<ProcessGroup>)>& fn,
                                  Place place = Place::kCpu) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(10));
  std::vector<RankResult> results(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank, device_of(place, rank));
    try {
      results[rank].outcome = fn(group);
    } catch (const std::exception& e) {
      results[rank].error = e.what();
    }
    results[rank].collectives = group->history();
  });
  return results;
}

std::vector<RankResult> run_scenario_on(int world, const std::string& name, Place place = Place::kCpu) {
  auto results = run_world(
      world, [&](std::shared_ptr<ProcessGroup> group) { return run_scenario(name, group); }, place);
  for (size_t r = 0; r < results.size(); ++r) {
    INFO(name << " on " << world << (place == Place::kSim ? " sim" : " cpu") << " ranks, rank " << r << ": "
              << results[r].error);
    REQUIRE(results[r].error.empty());
    CHECK(results[r].outcome.identical);
    CHECK(results[r].outcome.max_diff < scenario_tolerance(name));
  }
  return results;
}

std::vector<RankResult> run_error_on(int world, const std::string& name, Place place = Place::kCpu) {
  return run_world(
      world,
      [&](std::shared_ptr<ProcessGroup> group) {
        run_error_scenario(name, group);
        return Outcome{};
      },
      place);
}

TEST_CASE("DDP on thread ranks: every scenario matches single-process training") {
  for (const std::string& name : scenario_names()) {
    for (int world : {1, 2, 3}) run_scenario_on(world, name);
  }
}

// Each rank's group, replica and data on its own simulated device: every tensor DDP hands
// the group must be on that device, and host code must never read device memory.
TEST_CASE("DDP on thread ranks with sim devices: every scenario matches single-process training", "[sim]") {
  for (const std::string& name : scenario_names()) {
    for (int world : {1, 2}) run_scenario_on(world, name, Place::kSim);
  }
}

TEST_CASE("DDP on thread ranks with sim devices: the error scenarios name the rank or parameter", "[sim]") {
  for (const auto& result : run_error_on(2, "shape_mismatch", Place::kSim)) {
    CHECK_THAT(result.error, Contains("parameter layers.1.weight has shape [13, 16] float32 on rank 1"));
  }
  for (const auto& result : run_error_on(2, "unused_error", Place::kSim)) {
    CHECK_THAT(result.error, Contains("branch.weight (index 4), branch.bias (index 5)"));
  }
  for (const auto& result : run_error_on(2, "uneven", Place::kSim)) {
    CHECK_THAT(result.error, Contains("uneven inputs: rank 1 after 2 training iterations ran out of inputs"));
  }
  for (const auto& result : run_error_on(2, "wrapped_forward", Place::kSim)) {
    CHECK_THAT(result.error, Contains("but DDP's forward did not run in this iteration"));
  }
}

TEST_CASE("DDP refuses a module that is not on the group's device, naming the parameter and both devices") {
  auto results = run_world(
      2,
      [](std::shared_ptr<ProcessGroup> group) {
        models::MLP model(models::MLPOptions(8, 4).hidden({16}));
        auto ddp = DistributedDataParallel(model, group);
        return Outcome{};
      },
      Place::kSim);
  for (size_t r = 0; r < results.size(); ++r) {
    CHECK_THAT(results[r].error,
               Contains(fmt::format("DistributedDataParallel on rank {}: parameter layers.0.weight is on cpu but the "
                                    "process group (threads) takes tensors on sim:{}",
                                    r, r)));
  }
}

TEST_CASE("DDP on thread ranks: initial buckets follow reverse registration order") {
  auto results = run_scenario_on(2, "equivalence");
  // MLP 8-16-12-4: layers.2's bias and weight (208 bytes) reach the first cap (105 bytes),
  // layers.1's (240 bytes) and layers.0's reach the next (209 bytes).
  CHECK(results[0].outcome.initial_buckets == std::vector<std::vector<size_t>>{{5, 4}, {3, 2}, {1, 0}});
  CHECK(results[0].outcome.final_buckets == results[0].outcome.initial_buckets);
  // Per step: the uneven-input check and three buckets; then join() and the final comparison.
  size_t all_reduces = 0;
  for (const auto& name : results[0].collectives) all_reduces += name.rfind("all_reduce", 0) == 0;
  CHECK(all_reduces == 3 * (1 + 3) + 1);
}

TEST_CASE("DDP on thread ranks: buckets are rebuilt in the order gradients became ready") {
  auto results = run_scenario_on(2, "rebuild");
  // Registration: late.weight 0, late.bias 1, mid 2-3, early 4-5, one bucket each. Buckets
  // start reversed, but `late` (used last in forward) gets its gradients first.
  const Outcome& outcome = results[0].outcome;
  CHECK(outcome.initial_buckets == std::vector<std::vector<size_t>>{{5}, {4}, {3}, {2}, {1}, {0}});
  const auto& order = outcome.ready_order;
  REQUIRE(order.size() == 6);
  CHECK(std::set<size_t>(order.begin(), order.begin() + 2) == std::set<size_t>{0, 1});
  CHECK(std::set<size_t>(order.begin() + 2, order.begin() + 4) == std::set<size_t>{2, 3});
  std::vector<std::vector<size_t>> expected;
  for (size_t index : order) expected.push_back({index});
  for (const auto& result : results) CHECK(result.outcome.final_buckets == expected);
}

TEST_CASE("DDP on thread ranks: no_sync backwards issue no gradient all-reduce") {
  auto results = run_scenario_on(2, "no_sync");
  // Per step: two uneven-input checks, three buckets after the second backward only.
  size_t all_reduces = 0;
  for (const auto& name : results[0].collectives) all_reduces += name.rfind("all_reduce", 0) == 0;
  CHECK(all_reduces == 3 * (2 + 3) + 1);
}

TEST_CASE("DDP on thread ranks: mismatched parameter shapes name the rank and parameter") {
  for (const auto& result : run_error_on(2, "shape_mismatch")) {
    CHECK_THAT(result.error, Contains("parameter layers.1.weight has shape [13, 16] float32 on rank 1 but "
                                      "[12, 16] float32 on rank 0"));
  }
}

TEST_CASE("DDP on thread ranks: a parameter without gradient is named unless find_unused_parameters") {
  auto results = run_error_on(2, "unused_error");
  for (size_t r = 0; r < results.size(); ++r) {
    CHECK_THAT(results[r].error, Contains(fmt::format("on rank {}", r)));
    CHECK_THAT(results[r].error, Contains("branch.weight (index 4), branch.bias (index 5)"));
    CHECK_THAT(results[r].error, Contains("find_unused_parameters(true)"));
  }
}

TEST_CASE("DDP on thread ranks: a forward that goes around DDP fails backward, naming the parameter and rank") {
  for (int world : {1, 2}) {
    auto results = run_error_on(world, "wrapped_forward");
    for (int r = 0; r < world; ++r) {
      INFO("world " << world << ", rank " << r);
      CHECK_THAT(results[r].error, Contains("DistributedDataParallel: a gradient reached parameter 'layers.2."));
      CHECK_THAT(results[r].error, Contains(fmt::format("but DDP's forward did not run in this iteration (rank {}): "
                                                        "call the DDP module (ddp->forward(x) or ddp(x)), not the "
                                                        "module it wraps",
                                                        r)));
    }
  }
}

TEST_CASE("DDP on thread ranks: a second backward through one synchronizing forward is named") {
  for (const auto& result : run_error_on(2, "second_backward")) {
    CHECK_THAT(result.error, Contains("DDP's forward did not run in this iteration"));
    CHECK_THAT(result.error, Contains("Each synchronizing backward needs a forward of its own"));
  }
}

TEST_CASE("DDP on thread ranks: a rank that runs out of inputs is named on every rank") {
  auto results = run_error_on(2, "uneven");
  for (size_t r = 0; r < results.size(); ++r) {
    INFO("rank " << r);
    CHECK_THAT(results[r].error, Contains("uneven inputs: rank 1 after 2 training iterations ran out of inputs"));
    CHECK_THAT(results[r].error, Contains("rank 0 (iteration 3) still trained"));
  }
}

}  // namespace
}  // namespace brisk::dist::testing
