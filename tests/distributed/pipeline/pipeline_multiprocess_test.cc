// Pipelines across real processes over Gloo, started by the launcher, on 2 and 3 ranks: the
// scenarios of pipeline_worker.cc (GPipe, 1F1B, interleaved 1F1B, a skip connection and ZB-H1,
// each equal to one process on the global batch within 1e-12, with batch sizes changing per
// step).
// The workers run on the CPU, in the _sim_test twin each on its own simulated device, and in the
// gpu-tagged twin on CUDA (test_worker_device()); the reference runs on the CPU.
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;

TEST_CASE("Pipelines across processes equal one process on the global batch", "[pipeline]") {
  check_all_scenarios("tests/distributed/pipeline/pipeline_worker", {"gpipe", "1f1b", "interleaved", "skip", "zb-h1"});
}

}  // namespace
