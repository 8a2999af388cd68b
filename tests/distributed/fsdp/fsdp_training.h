#pragma once
// The fully_shard equivalence scenario, shared by the thread-rank test and the multi-process
// worker: N ranks, each training the fully sharded model on its slice of every global batch,
// must equal one process training the plain model on the global batch (float64).
//
// Models: models::MLP (10 -> 16 -> 12 -> 5; one unit per Linear) and ResNet-20 on 8x8 images
// (one unit per BasicBlock), the rest in the root unit, and ResNet-18 (the largest model in
// models/, at width 4 on 8x8 images; one unit per BasicBlock of its four stages). The ResNets run
// with their BatchNorms in eval mode: batch statistics over a rank's slice differ from the global batch's, which
// SyncBatchNorm, not sharding, addresses; their weights and biases still train.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/fsdp/fully_shard.h"
#include "distributed/process_group.h"
#include "nn/nn.h"

namespace brisk::dist::testing {

enum class FsdpModel { kMLP, kResNet20, kResNet18 };
enum class FsdpOptimizer { kSGDMomentum, kAdam };

struct FsdpScenario {
  FsdpModel model = FsdpModel::kMLP;
  FsdpOptimizer optimizer = FsdpOptimizer::kSGDMomentum;
  int steps = 3;
  bool reshard_after_forward = true;
  bool cpu_offload = false;
  int64_t global_batch = 12;  // divisible by 2, 3 and 4
};

std::string describe(const FsdpScenario& scenario);

// A float64 model of the scenario's kind on `device`, initialized from `seed`.
std::shared_ptr<nn::Module> make_fsdp_model(const FsdpScenario& scenario, uint64_t seed, Device device = kCPU);

struct TrainResult {
  std::vector<double> losses;  // per step: this rank's loss (the global batch's for the reference)
  nn::StateDict params;        // the full parameters after the last step, on the CPU
};

// One process, the plain model, every global batch.
TrainResult train_reference(const FsdpScenario& scenario, nn::Module& model);

// Makes the scenario's units of `model` (already on group->device()), trains it on this rank's
// slices, and returns the full parameters gathered after the last step. Checks on the way (a
// brisk::Error names what failed) that parameters are shards outside forward and backward,
// that a non-root unit's gathered parameters exist during its forward and are freed after it
// (reshard_after_forward) and after backward, and that every .grad is a shard (on the CPU
// under cpu_offload, with the gathered parameters on the group's device).
TrainResult train_fully_sharded(const FsdpScenario& scenario, nn::Module& model, std::shared_ptr<ProcessGroup> group,
                                const MixedPrecisionPolicy& mp_policy = {});

// The units the scenario makes: children first, the root last.
// (One per MLP layer or ResNet BasicBlock, then the root.)
std::vector<FSDPModule> shard_scenario_units(nn::Module& model, const FullyShardOptions& options);

// a -> (a again when `repeat`) -> b, for the desync tests: control flow that differs by rank.
struct RepeatNetImpl : nn::Module {
  RepeatNetImpl() {
    a = register_module("a", nn::Linear(8, 8));
    b = register_module("b", nn::Linear(8, 4));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = a(x);
    if (repeat) h = a(h);
    return b(h);
  }
  nn::Linear a{nullptr}, b{nullptr};
  bool repeat = false;
};
BRISK_MODULE(RepeatNet);

// The largest absolute difference between the same-named tensors of two state dicts (which
// must have the same names and shapes).
double max_abs_difference(const nn::StateDict& a, const nn::StateDict& b);

}  // namespace brisk::dist::testing
