// Tensor-parallel models trained on 2, 3 and 4 thread ranks (uneven splits: 7 hidden features,
// 11 classes, 5 sequence rows) equal their unsplit twins trained in one process on the same
// batches: the loss and every gradient (gathered) at each step and the parameters after the
// steps, for SGD with momentum and AdamW, with and without sequence parallelism, float64
// within 1e-12 (tp_scenarios.h). tp_multiprocess_test runs the same across processes.
#include <catch2/catch.hpp>

#include "tests/distributed/tensor_parallel/thread_group.h"
#include "tests/distributed/tensor_parallel/tp_scenarios.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {
namespace {

TEST_CASE("Tensor-parallel MLP and language model train as the unsplit model on one process") {
  for (const std::string& scenario : tp_scenario_names()) {
    for (const std::string optimizer : {"sgd", "adamw"}) {
      for (int world : {2, 3, 4}) {
        DYNAMIC_SECTION(scenario << ", " << optimizer << ", " << world << " ranks") {
          std::vector<double> diff(world, -1);
          run_tp(world,
                 [&](int rank, const GroupPtr& group) { diff[rank] = run_tp_scenario(scenario, optimizer, group); });
          for (int rank = 0; rank < world; ++rank) {
            INFO("rank " << rank);
            CHECK(diff[rank] >= 0);
            CHECK(diff[rank] < 1e-12);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace brisk::dist::testing
