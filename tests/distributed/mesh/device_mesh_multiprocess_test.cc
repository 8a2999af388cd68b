// DeviceMesh across real processes over Gloo, started by the launcher (on the CPU, on simulated
// devices in the _sim_test twin, on CUDA in the gpu-tagged one): a 2x2 mesh on 4
// processes, each dimension's groups made by dist::new_group on every rank (mesh_worker.cc).
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;

TEST_CASE("DeviceMesh 2x2 across 4 processes: members and collectives along both dimensions", "[mesh]") {
  check_all_scenarios("tests/distributed/mesh/mesh_worker", {"mesh"}, {4});
}

}  // namespace
