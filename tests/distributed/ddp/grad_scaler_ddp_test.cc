// optim::GradScaler with DistributedDataParallel and ZeRO-1 on thread ranks: an overflow in
// one rank's batch reaches every rank through the gradient all-reduce, so every rank skips
// that step and backs off alike, and the replicas stay identical.
#include <catch2/catch.hpp>

#include <limits>

#include "autograd/ops.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "nn/modules/linear.h"
#include "optim/grad_scaler.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

struct RankRun {
  std::vector<bool> stepped;
  std::vector<double> scales;
  Tensor weight;
  std::string error;
};

std::vector<RankRun> train_two_ranks(bool zero) {
  auto world = std::make_shared<ThreadWorld>(2, std::chrono::seconds(10));
  std::vector<RankRun> runs(2);
  run_ranks(2, [&](int rank) {
    try {
      auto group = std::make_shared<ThreadProcessGroup>(world, rank);
      nn::Linear model(4, 2);
      auto ddp = DistributedDataParallel(model, group);
      auto sgd = [](std::vector<Tensor> params) {
        return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1));
      };
      std::unique_ptr<optim::SGD> plain = zero ? nullptr : sgd(ddp->parameters());
      std::unique_ptr<ZeroRedundancyOptimizer> sharded =
          zero ? std::make_unique<ZeroRedundancyOptimizer>(ddp->parameters(), sgd, group) : nullptr;
      optim::GradScaler scaler(optim::GradScalerOptions().init_scale(1024.0).growth_interval(2));
      for (int step = 0; step < 5; ++step) {
        Tensor x = full({3, 4}, 0.1 * (rank + 1 + step));
        // Only rank 1's batch overflows, at step 1.
        if (step == 1 && rank == 1) x.select(0, 0).select(0, 0).fill_(std::numeric_limits<double>::infinity());
        if (zero) {
          sharded->zero_grad();
        } else {
          plain->zero_grad();
        }
        scaler.scale(ddp->forward(x).sum()).backward();
        runs[rank].stepped.push_back(zero ? scaler.step(*sharded) : scaler.step(*plain));
        scaler.update();
        runs[rank].scales.push_back(scaler.get_scale());
      }
      runs[rank].weight = model->weight.detach().clone();
    } catch (const std::exception& e) {
      runs[rank].error = e.what();
    }
  });
  return runs;
}

TEST_CASE("GradScaler under DDP and ZeRO-1: every rank skips the step that overflowed on one") {
  for (bool zero : {false, true}) {
    INFO((zero ? "ZeroRedundancyOptimizer" : "SGD"));
    std::vector<RankRun> runs = train_two_ranks(zero);
    for (const RankRun& run : runs) {
      REQUIRE(run.error.empty());
      CHECK(run.stepped == std::vector<bool>{true, false, true, true, true});
      CHECK(run.scales == std::vector<double>{1024.0, 512.0, 512.0, 1024.0, 1024.0});
    }
    CHECK(equal(runs[0].weight, runs[1].weight));
  }
}

}  // namespace
}  // namespace brisk::dist::testing
