// dist::Join on ranks that are threads of one process (ThreadProcessGroup, which fails when
// ranks issue different collectives at the same point, so a joined rank's shadow must match
// the training ranks' collectives exactly): PyTorch's Join results on 2 and 3 ranks with
// different batch counts, DDP with SGD and DDP with ZeRO, both divide settings; then the
// options and the errors.
#include <catch2/catch.hpp>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/join.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/join/join_cases.h"
#include "tests/distributed/join/join_scenarios.h"

namespace {

using namespace brisk;
using namespace brisk::dist;
using namespace brisk::dist::testing;
using Catch::Matchers::Contains;

constexpr double kTolerance = 1e-12;  // float64, sums in another order than PyTorch's

void check_fixture_cases(int world, const std::string& optimizer) {
  for (const std::string& name : join_case_names(world)) {
    auto threads = std::make_shared<ThreadWorld>(world);
    std::vector<JoinCaseOutcome> outcomes(world);
    run_ranks(world, [&](int rank) {
      outcomes[rank] = run_join_case(name, optimizer, std::make_shared<ThreadProcessGroup>(threads, rank));
    });
    for (int rank = 0; rank < world; ++rank) {
      INFO(name << " " << optimizer << " rank " << rank);
      CHECK(outcomes[rank].max_grad_diff < kTolerance);
      CHECK(outcomes[rank].max_param_diff < kTolerance);
      CHECK(outcomes[rank].max_final_grad_diff < kTolerance);
    }
  }
}

TEST_CASE("Join: DDP with SGD matches PyTorch's Join on 2 and 3 ranks with uneven batches", "[join]") {
  REQUIRE(join_case_names(2).size() == 4);
  REQUIRE(join_case_names(3).size() == 8);
  check_fixture_cases(2, "sgd");
  check_fixture_cases(3, "sgd");
}

TEST_CASE("Join: DDP with ZeroRedundancyOptimizer ends like DDP with SGD under PyTorch's Join", "[join]") {
  check_fixture_cases(2, "zero");
  check_fixture_cases(3, "zero");
}

TEST_CASE("Join: find_unused_parameters, bucket rebuild, bucket views and no_sync under a Join match one process",
          "[join]") {
  for (int world : {2, 3}) {
    for (const std::string& name : join_scenario_names()) {
      auto threads = std::make_shared<ThreadWorld>(world);
      std::vector<double> diffs(world);
      run_ranks(world, [&](int rank) {
        diffs[rank] = run_join_scenario(name, std::make_shared<ThreadProcessGroup>(threads, rank));
      });
      for (int rank = 0; rank < world; ++rank) {
        INFO(name << " on " << world << " ranks, rank " << rank);
        CHECK(diffs[rank] < 1e-5);
      }
    }
  }
}

// train_in_join on `world` thread ranks, rank r taking steps[r] steps; what each rank threw
// ("" when nothing).
std::vector<std::string> train_uneven(int world, const std::vector<int>& steps, const JoinOptions& options,
                                      bool call_ddp_join = false) {
  auto threads = std::make_shared<ThreadWorld>(world, std::chrono::seconds(5));
  std::vector<std::string> errors(world);
  run_ranks(world, [&](int rank) {
    try {
      train_in_join(std::make_shared<ThreadProcessGroup>(threads, rank), steps[rank], options, call_ddp_join);
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  return errors;
}

TEST_CASE("Join: throw_on_early_termination makes every rank throw once one has joined", "[join]") {
  auto errors = train_uneven(3, {3, 1, 3}, JoinOptions().throw_on_early_termination(true));
  CHECK_THAT(errors[1], Contains("Join: rank 1 exhausted all inputs (throw_on_early_termination; ranks 0, 2 still "
                                 "train)"));
  CHECK_THAT(errors[0], Contains("Join: detected ranks that exhausted their inputs (1)"));
  CHECK_THAT(errors[2], Contains("Join: detected ranks that exhausted their inputs (1)"));
}

TEST_CASE("Join: throw_on_early_termination with even inputs trains and finishes", "[join]") {
  auto errors = train_uneven(2, {2, 2}, JoinOptions().throw_on_early_termination(true));
  CHECK(errors == std::vector<std::string>{"", ""});
}

TEST_CASE("Join: disabled, the uneven-input error of DDP stays", "[join]") {
  auto errors = train_uneven(2, {2, 1}, JoinOptions().enable(false), /*call_ddp_join=*/true);
  for (const std::string& error : errors) {
    CHECK_THAT(error, Contains("uneven inputs: rank 1 after 1 training iterations ran out of inputs (joined)"));
  }
}

TEST_CASE("Join: DistributedDataParallel::join inside an enabled Join is refused", "[join]") {
  auto errors = train_uneven(1, {1}, JoinOptions(), /*call_ddp_join=*/true);
  CHECK_THAT(errors[0], Contains("DistributedDataParallel::join() on rank 0 inside an enabled dist::Join: call the "
                                 "Join's finish() instead"));
}

TEST_CASE("Join: needs Joinables of one process group", "[join]") {
  CHECK_THROWS_WITH(Join({}), Contains("Join: needs at least one Joinable"));
  auto threads = std::make_shared<ThreadWorld>(1);
  auto a = std::make_shared<ThreadProcessGroup>(threads, 0);
  auto b = std::make_shared<ThreadProcessGroup>(std::make_shared<ThreadWorld>(1), 0);
  nn::Linear first(2, 2), second(2, 2);
  auto ddp_a = DistributedDataParallel(first, a);
  auto ddp_b = DistributedDataParallel(second, b);
  CHECK_THROWS_WITH(Join({*ddp_a, *ddp_b}), Contains("Join: Joinable 1 uses another process group than Joinable 0"));
}

TEST_CASE("Join: the configuration lasts as long as the Join", "[join]") {
  auto threads = std::make_shared<ThreadWorld>(1);
  nn::Linear layer(2, 2);
  auto ddp = DistributedDataParallel(layer, std::make_shared<ThreadProcessGroup>(threads, 0));
  {
    Join join({*ddp}, JoinOptions().throw_on_early_termination(true));
    CHECK(ddp->join_config().enable);
    CHECK(ddp->join_config().throw_on_early_termination);
    CHECK(ddp->join_config().is_first_joinable);
    join.finish();
  }
  CHECK_FALSE(ddp->join_config().enable);
}

}  // namespace
