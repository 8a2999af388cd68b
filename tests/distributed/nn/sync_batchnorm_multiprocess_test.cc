// SyncBatchNorm across real processes over Gloo, started by the launcher: on 1, 2 and 3 ranks,
// every scenario of sync_batchnorm_worker (a converted model with unequal parts, the module
// on images, a rank with an empty part) ends with each rank's outputs, input gradients,
// summed parameter gradients and running statistics equal to plain BatchNorm on the
// concatenated batch (float64), and inside DistributedDataParallel the model trains as one
// process on the whole batch. The workers run on the CPU, in the _sim_test twin each on its
// own simulated device, and in the gpu-tagged twins on CUDA: over Gloo (ranks sharing the
// GPUs) and over NCCL (one rank per GPU; world size 1 on a one-GPU machine). World size 1 runs
// everywhere so that the CPU shows what a one-GPU NCCL run does: there the "empty" scenario's
// whole batch is empty (issue 32, item 6: BatchNorm refused it, the reference included).
#include <catch2/catch.hpp>

#include "tests/distributed/testing/launch_workers.h"

namespace {

using namespace brisk::testing;

TEST_CASE("SyncBatchNorm across processes equals BatchNorm on the concatenated batch", "[distributed]") {
  check_all_scenarios("tests/distributed/nn/sync_batchnorm_worker", {"model", "image", "empty", "ddp"}, {1, 2, 3});
}

}  // namespace
