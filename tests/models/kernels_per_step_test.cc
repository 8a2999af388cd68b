// Kernels per training step of the reference models on the simulated device, which counts one
// per backend kernel call (tensor/sim/sim_graph.h): the launches the same step makes on a GPU,
// where these small models are bound by their launches, not by the GPU's work
// (docs/cuda_kernels.md, "Launches per training step"). The step is train_bench's: forward,
// cross_entropy, backward, SGD with momentum, zero_grad; counted after a first step (which
// creates the momentum buffers). The counts are exact, so that a change adding launches to a
// step shows here; one that removes some lowers them here and in the docs' table. On a
// mismatch the step's kernels are listed by name.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "autograd/autocast.h"
#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/lenet.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "profiler/profiler.h"
#include "tensor/sim/sim_graph.h"

namespace brisk::models {
namespace {

struct StepCase {
  std::string model;
  bool channels_last = false;
  bool bf16 = false;
};

std::shared_ptr<nn::Module> make(const std::string& name) {
  if (name == "lenet") return LeNet5().ptr();
  if (name == "resnet20") return resnet20().ptr();
  return AirbenchNet().ptr();
}

// The kernels of one training step of `c` on sim:0 (batch 4); lists them by name when they
// are not `expected`.
uint64_t kernels_per_step(const StepCase& c, uint64_t expected) {
  manual_seed(0);
  const Device sim = sim_device(0);
  std::shared_ptr<nn::Module> model = make(c.model);
  model->to(sim);
  if (c.channels_last) model->to(MemoryFormat::ChannelsLast);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  Tensor images = randn(c.model == "lenet" ? Shape{4, 1, 28, 28} : Shape{4, 3, 32, 32}).to(sim);
  if (c.channels_last) images = images.contiguous(MemoryFormat::ChannelsLast);
  Tensor labels = (rand({4}) * 10).to(sim, kInt64);
  auto step = [&] {
    Tensor loss;
    {
      autocast mixed_precision(sim, kBFloat16, c.bf16);
      loss = nn::functional::cross_entropy(model->forward(images), labels);
    }
    loss.backward();
    opt.step();
    opt.zero_grad();
  };
  step();
  sim::reset_kernel_counts();
  step();
  const uint64_t kernels = sim::kernel_counts().run;
  if (kernels != expected) {
    profiler::Profiler prof;
    prof.start();
    step();
    prof.stop();
    std::cout << c.model << (c.channels_last ? " channels_last" : "") << (c.bf16 ? " bf16" : "")
              << ": the step's ops and kernels by name\n"
              << prof.key_averages().table("count", 80) << "\n";
  }
  return kernels;
}

TEST_CASE("kernels per training step on the simulated device") {
  struct Expected {
    StepCase c;
    uint64_t kernels;
  };
  // Before the launch work of issue 33 (fused loss, multi-tensor SGD, batch norm's counter in
  // its kernel, linear's own backward, F::pad, layout-keeping pooling and slice gradients):
  // 92, 274, 281, 319, 326, 125, 125, 146, 146.
  const Expected table[] = {
      {{"lenet"}, 37},
      {{"resnet20"}, 128},
      {{"resnet20", true}, 128},
      {{"resnet20", false, true}, 173},
      {{"resnet20", true, true}, 173},
      {{"airbench"}, 49},
      {{"airbench", true}, 49},
      {{"airbench", false, true}, 70},
      {{"airbench", true, true}, 70},
  };
  for (const Expected& e : table) {
    INFO(e.c.model << (e.c.channels_last ? " channels_last" : "") << (e.c.bf16 ? " bf16" : ""));
    CHECK(kernels_per_step(e.c, e.kernels) == e.kernels);
  }
}

}  // namespace
}  // namespace brisk::models
