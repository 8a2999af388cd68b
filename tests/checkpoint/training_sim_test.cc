// The training stack on the simulated device: a model moved to sim:0 with Module::to trains
// (autograd, conv, batch norm, dropout, cross_entropy, clip_grad_norm_, SGD and Adam with their
// fused steps) bit for bit as the same model on the CPU; a checkpoint saved from sim tensors
// (copied to the host, never read in place) restores into a fresh sim model and optimizer, and
// the resumed run ends where the uninterrupted one does.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/modules/dropout.h"
#include "nn/modules/flatten.h"
#include "nn/modules/linear.h"
#include "nn/modules/pooling.h"
#include "nn/sequential.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/sgd.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"

namespace brisk::checkpoint {
namespace {

using brisk::testing::same_bits;

const Device kSim = sim_device(0);

struct Run {
  nn::Sequential model{nullptr};
  std::unique_ptr<optim::Optimizer> optimizer;
  Device device;
};

// Weights drawn on the CPU from `seed`, then moved to `device`, so both devices start equal.
Run make_run(uint64_t seed, bool adam, Device device) {
  manual_seed(seed);
  Run run;
  run.model = nn::Sequential(nn::Conv2d(2, 4, 3), nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                             nn::Dropout(0.25), nn::Linear(16, 3));
  run.model->to(device);
  run.device = device;
  if (adam) {
    run.optimizer = std::make_unique<optim::Adam>(run.model->parameters(), optim::AdamOptions(0.01).amsgrad(true));
  } else {
    run.optimizer =
        std::make_unique<optim::SGD>(run.model->parameters(), optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  }
  return run;
}

// Step `step`'s batch: made on the host from the step number, then moved to the run's device.
void train_step(Run& run, int64_t step) {
  Generator gen(1000 + static_cast<uint64_t>(step));
  Tensor x = randn({5, 2, 6, 6}, {}, &gen).to(run.device);
  Tensor y = tensor<int64_t>({0, 2, 1, 1, 0}, {5}).to(run.device);
  // Dropout draws from the default generator: both devices draw the same counters.
  manual_seed(static_cast<uint64_t>(step));
  run.optimizer->zero_grad();
  Tensor loss = nn::functional::cross_entropy(run.model->forward(x), y);
  loss.backward();
  optim::clip_grad_norm_(run.model->parameters(), 0.5);
  run.optimizer->step();
}

void require_same_state(const nn::Module& a, const nn::Module& b) {
  nn::StateDict sa = a.state_dict(), sb = b.state_dict();
  REQUIRE(sa.keys() == sb.keys());
  for (const auto& [name, tensor] : sa) {
    INFO(name);
    REQUIRE(same_bits(tensor, sb[name]));
  }
}

TEST_CASE("training on sim:0 equals training on the CPU, bitwise") {
  const bool adam = GENERATE(false, true);
  CAPTURE(adam);
  Run cpu = make_run(3, adam, kCPU), sim = make_run(3, adam, kSim);
  for (const Tensor& p : sim.model->parameters()) REQUIRE(p.device() == kSim);
  for (int64_t step = 0; step < 4; ++step) {
    train_step(cpu, step);
    train_step(sim, step);
  }
  for (const Tensor& p : sim.model->parameters()) {
    REQUIRE(p.device() == kSim);
    REQUIRE(p.grad().device() == kSim);
    for (const auto& [name, state] : sim.optimizer->state(p)) {
      INFO(name);
      // Adam's step count stays a host scalar, as in PyTorch.
      REQUIRE(state.device() == (name == "step" ? kCPU : kSim));
    }
  }
  require_same_state(*cpu.model, *sim.model);
}

TEST_CASE("a checkpoint of a sim run restores into a sim run that ends where the uninterrupted one does") {
  const bool adam = GENERATE(false, true);
  CAPTURE(adam);
  std::string path = testing::scratch_dir("sim_resume") + "/ckpt.safetensors";
  Run uninterrupted = make_run(5, adam, kSim);
  for (int64_t step = 0; step < 3; ++step) train_step(uninterrupted, step);
  save_checkpoint(path, capture(*uninterrupted.model, *uninterrupted.optimizer, Progress{0, 3, 3}, 0));
  for (int64_t step = 3; step < 6; ++step) train_step(uninterrupted, step);

  Run resumed = make_run(77, adam, kSim);
  restore(load_checkpoint(path), *resumed.model, *resumed.optimizer);
  for (const Tensor& p : resumed.model->parameters()) {
    REQUIRE(p.device() == kSim);
    for (const auto& [name, state] : resumed.optimizer->state(p)) {
      INFO(name);
      REQUIRE(state.device() == (name == "step" ? kCPU : kSim));
    }
  }
  for (int64_t step = 3; step < 6; ++step) train_step(resumed, step);
  require_same_state(*uninterrupted.model, *resumed.model);
}

}  // namespace
}  // namespace brisk::checkpoint
