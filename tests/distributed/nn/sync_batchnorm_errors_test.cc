// SyncBatchNorm's errors on ranks that are threads of one process (a Gloo group made without
// init_process_group): an input off the group's device is named before any collective, on
// every rank.
#include <catch2/catch.hpp>
#include <memory>

#include "autograd/ops.h"
#include "distributed/nn/sync_batchnorm.h"
#include "tests/distributed/gloo/gloo_thread_ranks.h"

namespace brisk {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("SyncBatchNorm: an input off the process group's device is an error naming both") {
  auto body = [](dist::ProcessGroupGloo& g) {
    std::shared_ptr<dist::ProcessGroup> group(&g, [](dist::ProcessGroup*) {});
    nn::SyncBatchNorm bn(nn::BatchNormOptions(3), group);
    bn->to(sim_device(0));
    bn(zeros({4, 3}, TensorOptions(sim_device(0))));
  };
  CHECK_THROWS_WITH(testing::run_gloo_ranks(2, body),
                    Contains("SyncBatchNorm: the input is on sim:0, but its process group exchanges tensors on cpu"));
}

}  // namespace
}  // namespace brisk
