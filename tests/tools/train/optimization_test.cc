// The optimizer and schedule of the training program's flags: the optimizer kinds with their
// options, and each schedule's lr along the steps, warm-up included.
#include "tools/train/optimization.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/ops.h"
#include "optim/adam.h"
#include "optim/sgd.h"

using namespace brisk;
using namespace brisk::train;

namespace {

std::vector<Tensor> params() { return {zeros({2}).requires_grad_()}; }

TrainOptions with_schedule(const std::string& schedule, double warmup_epochs) {
  TrainOptions o;
  o.lr = 0.1;
  o.epochs = 2;
  o.lr_schedule = schedule;
  o.warmup_epochs = warmup_epochs;
  return o;
}

// The optimizer's lr before each of `steps` steps.
std::vector<double> lrs(optim::Optimizer& optimizer, optim::LRScheduler* scheduler, int steps) {
  std::vector<double> out;
  for (int t = 0; t < steps; ++t) {
    out.push_back(optimizer.param_groups()[0].options().get_lr());
    if (scheduler != nullptr) scheduler->step();
  }
  return out;
}

}  // namespace

TEST_CASE("make_optimizer: SGD with Nesterov and weight decay; AdamW with decoupled weight decay") {
  TrainOptions o;
  o.lr = 0.2;
  o.momentum = 0.8;
  o.nesterov = true;
  o.weight_decay = 5e-4;
  auto sgd = make_optimizer(o, params());
  REQUIRE(sgd->name() == "SGD");
  const auto& s = dynamic_cast<const optim::SGDOptions&>(sgd->param_groups()[0].options());
  CHECK(s.lr() == 0.2);
  CHECK(s.momentum() == 0.8);
  CHECK(s.nesterov());
  CHECK(s.weight_decay() == 5e-4);

  o.optimizer = "adamw";
  o.nesterov = false;
  o.weight_decay = 0.05;
  auto adamw = make_optimizer(o, params());
  REQUIRE(adamw->name() == "AdamW");
  const auto& a = dynamic_cast<const optim::AdamOptions&>(adamw->param_groups()[0].options());
  CHECK(a.lr() == 0.2);
  CHECK(a.weight_decay() == 0.05);
  CHECK(a.decoupled_weight_decay());
}

TEST_CASE("make_scheduler: constant and cosine, each with and without warm-up") {
  TrainOptions o = with_schedule("constant", 0);
  auto optimizer = make_optimizer(o, params());
  CHECK(make_scheduler(o, *optimizer, 5) == nullptr);

  o = with_schedule("constant", 0.8);  // 4 warm-up steps of 2 x 5
  optimizer = make_optimizer(o, params());
  auto warm_constant = make_scheduler(o, *optimizer, 5);
  std::vector<double> got = lrs(*optimizer, warm_constant.get(), 10);
  std::vector<double> want{0.0, 0.025, 0.05, 0.075, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
  for (size_t t = 0; t < want.size(); ++t) CHECK(got[t] == Approx(want[t]).margin(1e-15));

  o = with_schedule("cosine", 0);
  optimizer = make_optimizer(o, params());
  auto cosine = make_scheduler(o, *optimizer, 5);
  got = lrs(*optimizer, cosine.get(), 10);
  for (int t = 0; t < 10; ++t) CHECK(got[t] == Approx(0.05 * (1 + std::cos(M_PI * t / 10))).margin(1e-15));

  o = with_schedule("cosine", 0.4);  // 2 warm-up steps, then a cosine over the other 8
  optimizer = make_optimizer(o, params());
  auto warm_cosine = make_scheduler(o, *optimizer, 5);
  got = lrs(*optimizer, warm_cosine.get(), 10);
  CHECK(got[0] == 0.0);
  CHECK(got[1] == Approx(0.05));
  for (int t = 2; t < 10; ++t) CHECK(got[t] == Approx(0.05 * (1 + std::cos(M_PI * (t - 2) / 8))).margin(1e-15));
}

TEST_CASE("make_scheduler: onecycle peaks at --lr after the warm-up steps (30% without --warmup-epochs)") {
  TrainOptions o = with_schedule("onecycle", 0);
  auto optimizer = make_optimizer(o, params());
  auto default_cycle = make_scheduler(o, *optimizer, 10);
  std::vector<double> got = lrs(*optimizer, default_cycle.get(), 20);
  CHECK(got[0] == Approx(0.1 / 25));
  CHECK(std::max_element(got.begin(), got.end()) - got.begin() == 5);  // 0.3 * 20 - 1
  CHECK(got[5] == Approx(0.1));

  o = with_schedule("onecycle", 0.5);  // 5 steps up
  optimizer = make_optimizer(o, params());
  auto warm_cycle = make_scheduler(o, *optimizer, 10);
  got = lrs(*optimizer, warm_cycle.get(), 20);
  CHECK(std::max_element(got.begin(), got.end()) - got.begin() == 4);
  CHECK(got[4] == Approx(0.1));
}
