// Tensor parallelism across real processes over Gloo, started by the launcher: every scenario
// of tp_scenarios.h (tp_worker.cc) on 2 and 3 processes equals the unsplit model; on the CPU, on
// simulated devices in the _sim_test twin, on CUDA in the gpu-tagged one.
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;

TEST_CASE("Tensor-parallel training across processes equals the unsplit model", "[tensor_parallel]") {
  check_all_scenarios(
      "tests/distributed/tensor_parallel/tp_worker",
      {"mlp_sgd", "mlp_adamw", "mlp_sp_sgd", "mlp_sp_adamw", "lm_sgd", "lm_adamw", "lm_sp_sgd", "lm_sp_adamw"}, {2, 3});
}

}  // namespace
