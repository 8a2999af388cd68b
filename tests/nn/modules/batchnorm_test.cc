// nn::BatchNorm's num_batches_tracked: counted once per training forward, never in evaluation,
// by the batch norm kernel itself where the device has one (so a training forward on sim:0 is
// one kernel), by the composite paths otherwise; momentum None still averages cumulatively.
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/modules/batchnorm.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_graph.h"

using namespace brisk;

namespace {

const Device sim0 = sim_device(0);

Tensor batch(uint64_t seed, DType dtype = kFloat32) {
  Generator gen(seed);
  return randn({6, 3, 4, 5}, dtype, &gen);
}

int64_t count_of(const nn::BatchNorm2d& bn) { return bn->num_batches_tracked.to(kCPU).item<int64_t>(); }

}  // namespace

TEST_CASE("BatchNorm counts each training forward in num_batches_tracked, on the CPU and on sim") {
  for (Device device : {kCPU, sim0}) {
    for (std::optional<double> momentum : {std::optional<double>(0.1), std::optional<double>()}) {
      for (FusedActivation activation : {FusedActivation::None, FusedActivation::Relu}) {
        INFO(device.str() << (momentum ? " momentum 0.1 " : " momentum None ") << fused_activation_name(activation));
        nn::BatchNorm2d bn(nn::BatchNormOptions(3).momentum(momentum).activation(activation));
        bn->to(device);
        std::vector<Tensor> means;
        for (int64_t k = 1; k <= 3; ++k) {
          Tensor x = batch(k);
          means.push_back(x.mean({0, 2, 3}));
          bn->forward(x.to(device)).sum().backward();
          CHECK(count_of(bn) == k);
        }
        bn->eval();
        bn->forward(batch(4).to(device));
        CHECK(count_of(bn) == 3);
        // Without momentum the running mean is the plain average of the batches' means.
        if (!momentum) {
          Tensor average = (means[0] + means[1] + means[2]) / 3.0;
          CHECK(allclose(bn->running_mean.to(kCPU), average, 1e-6, 1e-6));
        }
      }
    }
  }
}

TEST_CASE("BatchNorm counts batches where the composite runs: other dtypes, empty batches, world size 1") {
  // float64 data with float32 parameters has no kernel: batch_norm is composed.
  nn::BatchNorm2d bn(3);
  bn->forward(batch(1, kFloat64));
  CHECK(count_of(bn) == 1);
  // An empty batch (a data-parallel rank may hold none) is counted, as in PyTorch.
  bn->forward(empty({0, 3, 4, 5}));
  CHECK(count_of(bn) == 2);
  // Not in evaluation, and not without running statistics (there is no counter).
  bn->eval();
  bn->forward(batch(2, kFloat64));
  CHECK(count_of(bn) == 2);
  nn::BatchNorm2d untracked(nn::BatchNormOptions(3).track_running_stats(false));
  CHECK_FALSE(untracked->num_batches_tracked.defined());
  untracked->forward(batch(3));
}

TEST_CASE("A BatchNorm training forward on sim is one kernel, the counter's increment included") {
  for (std::optional<double> momentum : {std::optional<double>(0.1), std::optional<double>()}) {
    INFO((momentum ? "momentum 0.1" : "momentum None"));
    nn::BatchNorm2d bn(nn::BatchNormOptions(3).momentum(momentum).activation(FusedActivation::Relu));
    bn->to(sim0);
    Tensor x = batch(1).to(sim0);
    sim::reset_kernel_counts();
    bn->forward(x);
    CHECK(sim::kernel_counts().run == 1);  // was 3: fill_ and add of num_batches_tracked.add_(1), batch_norm
    CHECK(count_of(bn) == 1);
  }
}
