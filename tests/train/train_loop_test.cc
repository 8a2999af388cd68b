// The training loop (train/train_loop.h): one step, an epoch resumed part-way, on the CPU and on
// a device (sim:0) without host reads, accumulation, clipping, evaluation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "data/tensor_dataset.h"
#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/adam.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tensor/sim/sim_backend.h"
#include "train/train_loop.h"

using namespace brisk;
using namespace brisk::train;

namespace {

// Two well separated classes in 2-D: class 1 where x0 + x1 > 0.
std::shared_ptr<data::TensorDataset> separable(int64_t n) {
  Generator gen(5);
  Tensor x = randn({n, 2}, {}, &gen);
  Tensor y = x.sum({1}).gt(0.0).to(kInt64);
  return std::make_shared<data::TensorDataset>(x, y);
}

// A model as users write one: a module whose forward overrides nn::Module's.
class NetImpl : public nn::Module {
 public:
  explicit NetImpl(nn::Sequential layers) : layers_(register_module("layers", std::move(layers))) {}
  Tensor forward(const Tensor& x) override { return layers_(x); }

 private:
  nn::Sequential layers_;
};

std::shared_ptr<NetImpl> linear_classifier() {
  manual_seed(0);
  return std::make_shared<NetImpl>(nn::Sequential(nn::Linear(2, 2)));
}

}  // namespace

TEST_CASE("train_step and eval_step: the batch's summed loss and correct count") {
  std::shared_ptr<NetImpl> model = linear_classifier();
  auto set = separable(16);
  data::Batch batch{set->data(), set->target()};
  Tensor logits = model->forward(batch.data);
  double want_loss = nn::functional::cross_entropy(logits, batch.target).item<double>() * 16;
  int64_t want_correct = logits.argmax(1).eq(batch.target).sum().item<int64_t>();

  Metrics eval = eval_step(*model, batch).read();
  REQUIRE(eval.count == 16);
  REQUIRE(eval.correct == want_correct);
  REQUIRE(eval.loss_sum == Approx(want_loss).epsilon(1e-6));

  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.5));
  Tensor before = model->parameters()[0].clone();
  Metrics step = train_step(*model, optimizer, batch).read();
  REQUIRE(step.count == 16);
  REQUIRE(step.correct == want_correct);  // measured on the logits before the update
  REQUIRE(step.loss_sum == Approx(want_loss).epsilon(1e-6));
  REQUIRE_FALSE(equal(before, model->parameters()[0]));
}

TEST_CASE("train_step with label smoothing minimizes the smoothed cross-entropy") {
  std::shared_ptr<NetImpl> model = linear_classifier();
  auto set = separable(16);
  data::Batch batch{set->data(), set->target()};
  Tensor logits = model->forward(batch.data);
  double smoothed =
      nn::functional::cross_entropy(logits, batch.target, Tensor(), -100, nn::Reduction::Mean, 0.3).item<double>();
  double plain = nn::functional::cross_entropy(logits, batch.target).item<double>();
  REQUIRE(smoothed != Approx(plain).epsilon(1e-3));

  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.5));
  Metrics step = train_step(*model, optimizer, batch, StepOptions{/*label_smoothing=*/0.3}).read();
  REQUIRE(step.loss_sum == Approx(smoothed * 16).epsilon(1e-6));
}

TEST_CASE("train_epoch: learns a separable problem; evaluate measures it in eval mode") {
  std::shared_ptr<NetImpl> model = linear_classifier();
  auto set = separable(64);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.5).momentum(0.9));
  data::DataLoader train_loader(set, data::DataLoaderOptions().batch_size(8).shuffle(true).seed(1));
  data::DataLoader test_loader(set, data::DataLoaderOptions().batch_size(64));

  Metrics first = evaluate(*model, test_loader, kCPU).read();
  REQUIRE_FALSE(model->is_training());
  checkpoint::Progress progress;
  Metrics train;
  for (int epoch = 0; epoch < 5; ++epoch) {
    train = train_epoch(*model, optimizer, nullptr, train_loader, kCPU, progress).read();
  }
  REQUIRE(model->is_training());
  REQUIRE(train.count == 64);
  REQUIRE(progress.epoch == 5);
  REQUIRE(progress.batch == 0);
  REQUIRE(progress.step == 40);
  Metrics last = evaluate(*model, test_loader, kCPU).read();
  REQUIRE(last.count == 64);
  REQUIRE(last.loss() < first.loss() / 2);
  REQUIRE(last.accuracy() >= 0.95);
}

TEST_CASE("train_epoch: a resumed epoch trains only the batches after progress.batch, stepping the scheduler") {
  std::shared_ptr<NetImpl> model = linear_classifier();
  auto set = separable(36);  // batches of 8: 8, 8, 8, 8, 4
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  optim::StepLR scheduler(optimizer, 1, 0.5);  // halves the lr at every step
  data::DataLoader loader(set, data::DataLoaderOptions().batch_size(8).shuffle(true).seed(1));
  checkpoint::Progress progress{2, 3, 17};
  std::vector<int64_t> seen_batches, seen_counts;
  MetricSums trained = train_epoch(*model, optimizer, &scheduler, loader, kCPU, progress,
                                   [&](const checkpoint::Progress& p, const MetricSums& epoch) {
                                     seen_batches.push_back(p.batch);
                                     seen_counts.push_back(epoch.count());
                                   });
  REQUIRE(seen_batches == std::vector<int64_t>{4, 5});
  REQUIRE(seen_counts == std::vector<int64_t>{8, 12});
  REQUIRE(trained.read().count == 12);
  REQUIRE(progress.epoch == 3);
  REQUIRE(progress.batch == 0);
  REQUIRE(progress.step == 19);
  REQUIRE(scheduler.last_epoch() == 2);
  REQUIRE(optimizer.param_groups()[0].options().get_lr() == 0.025);
  REQUIRE(loader.epoch() == 3);  // it loaded epoch 2's order
}

TEST_CASE("train_epoch and evaluate on a device: no copy to the host but where the metrics are read; the CPU's "
          "numbers") {
  const Device sim = sim_device(0);
  auto set = separable(40);  // batches of 8: 5 steps
  auto copies = [] { return sim::copy_counts().device_to_host; };
  struct Run {
    std::shared_ptr<NetImpl> model = linear_classifier();
    optim::SGD optimizer{model->parameters(), optim::SGDOptions(0.5).momentum(0.9)};
    optim::StepLR scheduler{optimizer, 2, 0.5};
    checkpoint::Progress progress;
  };
  auto train = [&](Run& run, Device device, const StepCallback& on_step) {
    run.model->to(device);
    data::DataLoader loader(set, data::DataLoaderOptions().batch_size(8).shuffle(true).seed(3));
    return train_epoch(*run.model, run.optimizer, &run.scheduler, loader, device, run.progress, on_step);
  };

  Run on_cpu;
  std::vector<Metrics> cpu_logged;
  Metrics cpu_train = train(on_cpu, kCPU, [&](const checkpoint::Progress& p, const MetricSums& epoch) {
                        if (p.batch % 2 == 0) cpu_logged.push_back(epoch.read());
                      }).read();

  Run on_sim;
  std::vector<uint64_t> step_copies;  // copies made by each step, the reads excluded
  std::vector<Metrics> sim_logged;
  uint64_t last = copies();
  MetricSums sim_sums = train(on_sim, sim, [&](const checkpoint::Progress& p, const MetricSums& epoch) {
    step_copies.push_back(copies() - last);
    if (p.batch % 2 == 0) {  // a log interval of 2
      const uint64_t before = copies();
      sim_logged.push_back(epoch.read());
      CHECK(copies() - before == 2);  // the targets' check and the sums
    }
    last = copies();
  });
  REQUIRE(step_copies == std::vector<uint64_t>(5, 0));
  REQUIRE(sim_sums.device() == sim);
  Metrics sim_train = sim_sums.read();

  // The simulated device computes with the CPU's kernels: the same numbers, bit for bit.
  REQUIRE(sim_logged.size() == cpu_logged.size());
  for (size_t i = 0; i < sim_logged.size(); ++i) {
    CHECK(sim_logged[i].loss_sum == cpu_logged[i].loss_sum);
    CHECK(sim_logged[i].correct == cpu_logged[i].correct);
    CHECK(sim_logged[i].count == cpu_logged[i].count);
  }
  CHECK(sim_train.loss_sum == cpu_train.loss_sum);
  CHECK(sim_train.correct == cpu_train.correct);
  CHECK(sim_train.count == 40);
  for (size_t i = 0; i < on_cpu.model->parameters().size(); ++i) {
    CHECK(equal(on_sim.model->parameters()[i].to(kCPU), on_cpu.model->parameters()[i]));
  }

  data::DataLoader test_loader(set, data::DataLoaderOptions().batch_size(16));
  const uint64_t before_eval = copies();
  MetricSums sim_test = evaluate(*on_sim.model, test_loader, sim);
  CHECK(copies() == before_eval);
  Metrics test = sim_test.read();
  Metrics cpu_test = evaluate(*on_cpu.model, test_loader, kCPU).read();
  CHECK(test.loss_sum == cpu_test.loss_sum);
  CHECK(test.correct == cpu_test.correct);
}

TEST_CASE("train_epoch on a device: a bad label fails at the next read of the metrics, naming it") {
  nn::functional::check_deferred_targets();  // nothing left from other tests
  const Device sim = sim_device(0);
  std::shared_ptr<NetImpl> model = linear_classifier();
  model->to(sim);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  Tensor x = randn({8, 2});
  Tensor y = tensor<int64_t>({0, 1, 0, 1, 1, 5, 0, 1}, {8});
  data::DataLoader loader(std::make_shared<data::TensorDataset>(x, y), data::DataLoaderOptions().batch_size(4));
  checkpoint::Progress progress;
  MetricSums sums = train_epoch(*model, optimizer, nullptr, loader, sim, progress);
  REQUIRE(progress.step == 2);
  REQUIRE_THROWS_WITH(sums.read(), Catch::Contains("cross_entropy: target 5 is out of bounds for 2 classes") &&
                                       Catch::Contains("element 1 of the target of call 2 of 2"));
}

namespace {

// A float64 two-layer network, so that accumulated and whole-batch gradients compare to ~1e-15.
std::shared_ptr<NetImpl> float64_network() {
  manual_seed(3);
  auto net = std::make_shared<NetImpl>(nn::Sequential(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 3)));
  net->to(kFloat64);
  return net;
}

}  // namespace

TEST_CASE("train_step with micro-batches: the step of one batch of all their examples (accumulation)") {
  Generator gen(9);
  Tensor x = randn({10, 4}, TensorOptions(kFloat64), &gen);
  Tensor y = tensor<int64_t>({0, 1, 2, 2, 1, 0, 0, 2, 1, 1}, {10});
  // Unequal micro-batches (6 + 4): each mean loss counts by its share of the step's examples.
  const std::vector<data::Batch> micro{{x.narrow(0, 0, 6), y.narrow(0, 0, 6)}, {x.narrow(0, 6, 4), y.narrow(0, 6, 4)}};
  const StepOptions options{/*label_smoothing=*/0.1, /*max_grad_norm=*/0.5, /*accumulate=*/2};

  std::shared_ptr<NetImpl> whole = float64_network();
  optim::AdamW whole_optimizer(whole->parameters(), optim::AdamWOptions(0.01));
  std::shared_ptr<NetImpl> accumulated = float64_network();
  optim::AdamW accumulated_optimizer(accumulated->parameters(), optim::AdamWOptions(0.01));
  for (int step = 0; step < 3; ++step) {
    Metrics a = train_step(*whole, whole_optimizer, data::Batch{x, y}, options).read();
    Metrics b = train_step(*accumulated, accumulated_optimizer, micro, options).read();
    CHECK(b.count == 10);
    CHECK(b.correct == a.correct);
    CHECK(b.loss_sum == Approx(a.loss_sum).epsilon(1e-12));
  }
  const std::vector<Tensor> want = whole->parameters(), got = accumulated->parameters();
  for (size_t i = 0; i < want.size(); ++i) CHECK((got[i] - want[i]).abs().max().item<double>() < 1e-12);
}

TEST_CASE("train_step: --max-grad-norm clips the gradients' total norm before the update") {
  std::shared_ptr<NetImpl> model = float64_network();
  Generator gen(4);
  data::Batch batch{randn({8, 4}, TensorOptions(kFloat64), &gen), tensor<int64_t>({0, 1, 2, 0, 1, 2, 0, 1}, {8})};
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(1.0));
  std::vector<Tensor> before;
  for (const Tensor& p : model->parameters()) before.push_back(p.clone());
  train_step(*model, optimizer, batch, StepOptions{0.0, /*max_grad_norm=*/1e-3});
  // With lr 1 and no momentum the update is the clipped gradient: total norm 1e-3.
  double squares = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    squares += (model->parameters()[i] - before[i]).pow(2).sum().item<double>();
  }
  CHECK(std::sqrt(squares) == Approx(1e-3).epsilon(1e-4));  // PyTorch divides by the norm + 1e-6
}

TEST_CASE("train_epoch with accumulation: steps of N loader batches, the epoch's last step taking what is left") {
  std::shared_ptr<NetImpl> model = linear_classifier();
  auto set = separable(36);  // batches of 4: 9 a epoch, so steps of 2, 2, 2, 2, 1
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  optim::StepLR scheduler(optimizer, 1, 0.5);
  data::DataLoader loader(set, data::DataLoaderOptions().batch_size(4).shuffle(true).seed(1));
  checkpoint::Progress progress;
  std::vector<int64_t> seen_batches;
  train_epoch(
      *model, optimizer, &scheduler, loader, kCPU, progress,
      [&](const checkpoint::Progress& p, const MetricSums&) { seen_batches.push_back(p.batch); },
      StepOptions{0.0, 0.0, /*accumulate=*/2});
  CHECK(seen_batches == std::vector<int64_t>{2, 4, 6, 8, 9});
  CHECK(progress.step == 5);
  CHECK(scheduler.last_epoch() == 5);
  CHECK(steps_per_epoch(9, 2) == 5);
  CHECK(steps_per_epoch(8, 2) == 4);
  CHECK(steps_per_epoch(9, 1) == 9);
}
