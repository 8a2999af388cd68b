// One rank of a fully_shard scenario across processes, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/fsdp/fsdp_worker [--device cpu|sim] all
//
// Every rank trains the fully sharded model (fsdp_training.h) on its slice of each global
// batch, on the group's device, and computes the reference itself: one process on the CPU,
// the plain model, the global batch. `all` runs every scenario and prints "<scenario> ok ..."
// when the full parameters after the last step match the reference's within 1e-12 (float64),
// "<scenario> FAILED ..." otherwise; the exit status is 0 only when all passed.
//   mlp_sgd, mlp_adam, resnet_adam   the MLP with SGD (momentum) and Adam, ResNet-20 with Adam
//   mismatch   rank 1's first layer has one input more: every rank fails, naming rank 1.
//   desync     rank 1 runs unit `a` twice in its forward: every rank fails, naming its unit
//              and rank, within the group's timeout.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "distributed/distributed.h"
#include "nn/nn.h"
#include "tensor/native/ops.h"
#include "tests/distributed/fsdp/fsdp_training.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk;
using namespace brisk::dist::testing;

std::string equivalence(const FsdpScenario& scenario, const std::shared_ptr<dist::ProcessGroup>& group,
                        std::string& detail) {
  std::shared_ptr<nn::Module> reference_model = make_fsdp_model(scenario, /*seed=*/1);
  const TrainResult reference = train_reference(scenario, *reference_model);
  // Rank 0 starts from the reference's initialization, the others from their own.
  const int rank = group->rank();
  std::shared_ptr<nn::Module> model = make_fsdp_model(scenario, rank == 0 ? 1 : 50 + rank, group->device());
  const TrainResult sharded = train_fully_sharded(scenario, *model, group);
  const double diff = max_abs_difference(sharded.params, reference.params);
  detail = fmt::format("max_diff={:.3g}", diff);
  return diff < 1e-12 ? "" : fmt::format("parameters differ from the reference by {:.3g}; ", diff);
}

int run_all(const std::string& what, const std::shared_ptr<dist::ProcessGroup>& group) {
  if (what == "mismatch") {
    nn::Linear layer(group->rank() == 1 ? 5 : 4, 3);
    layer->to(group->device());
    dist::fully_shard(*layer.ptr(), dist::FullyShardOptions().group(group));
    std::printf("mismatch ended without an error\n");
    return 1;
  }
  if (what == "desync") {
    RepeatNet model;
    model->repeat = group->rank() == 1;
    model->to(group->device());
    const auto options = dist::FullyShardOptions().group(group);
    dist::fully_shard(*model->a, options);
    dist::fully_shard(*model->b, options);
    dist::fully_shard(*model.ptr(), options);
    model(native::ones({2, 8}, TensorOptions(kFloat32).device(group->device()))).sum().backward();
    std::printf("desync ended without an error\n");
    return 1;
  }
  std::vector<std::string> names{what};
  if (what == "all") names = {"mlp_sgd", "mlp_adam", "resnet_adam"};
  int failures = 0;
  for (const std::string& name : names) {
    FsdpScenario scenario;
    scenario.model = name.rfind("resnet", 0) == 0 ? FsdpModel::kResNet20 : FsdpModel::kMLP;
    scenario.optimizer = name.find("adam") != std::string::npos ? FsdpOptimizer::kAdam : FsdpOptimizer::kSGDMomentum;
    std::string detail;
    std::string failure = name == "mlp_sgd" || name == "mlp_adam" || name == "resnet_adam"
                              ? equivalence(scenario, group, detail)
                              : "unknown scenario";
    std::printf("%s %s %s%s\n", name.c_str(), failure.empty() ? "ok" : "FAILED", failure.c_str(), detail.c_str());
    std::fflush(stdout);
    failures += failure.empty() ? 0 : 1;
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|mlp_sgd|mlp_adam|resnet_adam|mismatch|desync", run_all);
}
