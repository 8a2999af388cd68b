// A captured training step (train/graphed_step.h) on the simulated device: N steps of LeNet
// and of ResNet-20, with SGD, momentum, weight decay and a StepLR schedule, leave the
// parameters, the buffers and the metrics bit for bit where N eager train_steps leave them,
// the last partial batch included; what cannot be captured is refused up front. The
// gpu-tagged twin does the same on cuda:0, within float32 rounding (cuDNN's backward kernels
// may sum in another order from one call to the next).
#include "train/graphed_step.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "autograd/ops.h"
#include "models/cifar_resnet.h"
#include "models/lenet.h"
#include "optim/adam.h"
#include "optim/grad_scaler.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#if !defined(BRISK_TEST_DEVICE_CUDA)
#include "tensor/sim/sim_graph.h"
#endif

namespace brisk::train {
namespace {

using Catch::Matchers::Contains;

#if defined(BRISK_TEST_DEVICE_CUDA)
const Device kDevice = cuda_device(0);
#else
const Device kDevice = sim_device(0);
#endif

// Equal bit for bit on the simulated device (the CPU's kernels), close on a GPU.
bool same(const Tensor& a, const Tensor& b) {
#if defined(BRISK_TEST_DEVICE_CUDA)
  return allclose(a.to(kFloat64), b.to(kFloat64), 1e-4, 1e-5);
#else
  return equal(a, b);
#endif
}

bool same(double a, double b) {
#if defined(BRISK_TEST_DEVICE_CUDA)
  return std::abs(a - b) <= 1e-4 * std::abs(b);
#else
  return a == b;
#endif
}

std::vector<data::Batch> batches(const Shape& image, int64_t batch, int64_t full_batches, int64_t last) {
  Generator gen(7);
  std::vector<data::Batch> out;
  for (int64_t i = 0; i <= full_batches; ++i) {
    int64_t n = i < full_batches ? batch : last;
    Shape shape{n};
    shape.insert(shape.end(), image.begin(), image.end());
    Tensor labels = (rand({n}, {}, &gen) * 10).to(kInt64);
    out.push_back({randn(shape, {}, &gen).to(kDevice), labels.to(kDevice)});
  }
  return out;
}

struct Run {
  std::vector<Tensor> state;  // parameters and buffers, on the host
  Metrics metrics;
  int64_t eager_steps = 0, replays = 0, captures = 0;  // of GraphedTrainStep
};

// Trains a fresh model (seeded) on `data`, eagerly or through GraphedTrainStep.
Run train(const std::function<std::shared_ptr<nn::Module>()>& make_model, const std::vector<data::Batch>& data,
          bool graphed) {
  manual_seed(0);
  std::shared_ptr<nn::Module> model = make_model();
  model->to(kDevice);
  model->train();
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.05).momentum(0.9).weight_decay(5e-4));
  optim::StepLR schedule(optimizer, /*step_size=*/3, /*gamma=*/0.5);
  auto graph_step = graphed ? std::make_unique<GraphedTrainStep>(*model, optimizer, kDevice) : nullptr;
  MetricSums sums(kDevice);
  for (const data::Batch& batch : data) {
    sums.add(graphed ? graph_step->step(batch) : train_step(*model, optimizer, batch));
    schedule.step();
  }
  Run run;
  run.metrics = sums.read();
  for (const Tensor& t : model->parameters()) run.state.push_back(t.to(kCPU));
  for (const Tensor& t : model->buffers()) run.state.push_back(t.to(kCPU));
  if (graph_step != nullptr) {
    run.eager_steps = graph_step->eager_steps();
    run.replays = graph_step->replays();
    run.captures = graph_step->captures();
  }
  return run;
}

void check_replays_equal_eager_steps(const std::function<std::shared_ptr<nn::Module>()>& make_model, const Shape& image,
                                     int64_t batch, int64_t full_batches) {
  std::vector<data::Batch> data = batches(image, batch, full_batches, batch - 3);
  Run eager = train(make_model, data, false);
#if !defined(BRISK_TEST_DEVICE_CUDA)
  sim::reset_kernel_counts();
#endif
  Run graphed = train(make_model, data, true);
  CHECK(graphed.eager_steps == 2);  // the warm-up and the last, partial batch
  CHECK(graphed.replays == full_batches - 1);
  CHECK(graphed.captures == 1 + (full_batches - 1) / 3);  // StepLR changes the lr every 3 steps
#if !defined(BRISK_TEST_DEVICE_CUDA)
  CHECK(sim::kernel_counts().replayed > 0);
#endif

  CHECK(graphed.metrics.count == eager.metrics.count);
  CHECK(graphed.metrics.correct == eager.metrics.correct);
  CHECK(same(graphed.metrics.loss_sum, eager.metrics.loss_sum));
  REQUIRE(graphed.state.size() == eager.state.size());
  for (size_t i = 0; i < eager.state.size(); ++i) {
    INFO("parameter or buffer " << i << ": " << eager.state[i].describe());
    CHECK(same(graphed.state[i], eager.state[i]));
  }
}

}  // namespace

TEST_CASE("LeNet: replayed steps equal eager steps bit for bit") {
  check_replays_equal_eager_steps([] { return models::LeNet5().ptr(); }, {1, 28, 28}, /*batch=*/8,
                                  /*full_batches=*/8);
}

TEST_CASE("ResNet-20: replayed steps equal eager steps bit for bit, batch norm's running statistics too") {
  check_replays_equal_eager_steps([] { return models::resnet20().ptr(); }, {3, 32, 32}, /*batch=*/4,
                                  /*full_batches=*/4);
}

TEST_CASE("steps whose capture would replay wrongly are refused up front") {
  manual_seed(0);
  auto model = models::LeNet5().ptr();
  model->to(kDevice);
  optim::Adam adam(model->parameters());
  CHECK_THROWS_WITH(GraphedTrainStep(*model, adam, kDevice), Contains("needs the SGD optimizer: Adam"));
  optim::SGD sgd(model->parameters());
  optim::GradScaler scaler;
  StepOptions scaled;
  scaled.scaler = &scaler;
  CHECK_THROWS_WITH(GraphedTrainStep(*model, sgd, kDevice, scaled), Contains("cannot use a GradScaler"));
  StepOptions accumulate;
  accumulate.accumulate = 2;
  CHECK_THROWS_WITH(GraphedTrainStep(*model, sgd, kDevice, accumulate), Contains("over 2 batches"));
  CHECK_THROWS_WITH(GraphedTrainStep(*model, sgd, kCPU), Contains("not of the cpu"));
}

}  // namespace brisk::train
