// LR schedulers beyond the PyTorch sequences of scheduler_fixture_test: state dict round
// trips (with the optimizer's own), chaining through initial_lr, and the errors.
#include <catch2/catch.hpp>

#include <functional>

#include "autograd/ops.h"
#include "optim/optim.h"

namespace brisk::test {
namespace {

using Catch::Contains;
using MakeScheduler = std::function<std::unique_ptr<optim::LRScheduler>(optim::Optimizer&)>;

std::unique_ptr<optim::SGD> two_group_sgd() {
  std::vector<optim::ParamGroup> groups = {
      optim::ParamGroup({zeros({1}, TensorOptions().requires_grad(true))}),
      optim::ParamGroup({zeros({1}, TensorOptions().requires_grad(true))}, optim::SGDOptions(0.02).momentum(0.5))};
  return std::make_unique<optim::SGD>(groups, optim::SGDOptions(0.1).momentum(0.9));
}

std::vector<double> momentums(const optim::Optimizer& opt) {
  std::vector<double> out;
  for (const auto& group : opt.param_groups()) out.push_back(group.options().get_momentum());
  return out;
}

// Runs 12 steps straight, and 5 steps, a save, a load into fresh objects and 7 more: the lrs
// and momentums must agree at every step after the load.
void check_round_trip(const MakeScheduler& make) {
  auto straight_opt = two_group_sgd();
  auto straight = make(*straight_opt);
  std::vector<std::vector<double>> lrs, moms;
  for (int i = 0; i < 12; ++i) {
    straight->step();
    lrs.push_back(straight->get_last_lr());
    moms.push_back(momentums(*straight_opt));
  }

  auto first_opt = two_group_sgd();
  auto first = make(*first_opt);
  for (int i = 0; i < 5; ++i) first->step();
  nlohmann::json scheduler_state = first->state_dict();
  optim::OptimizerState optimizer_state = first_opt->state_dict();

  // As in PyTorch: make the scheduler, then load the optimizer (its lrs), then the scheduler.
  auto resumed_opt = two_group_sgd();
  auto resumed = make(*resumed_opt);
  resumed_opt->load_state_dict(optimizer_state);
  resumed->load_state_dict(scheduler_state);
  REQUIRE(resumed->last_epoch() == 5);
  REQUIRE(resumed->get_last_lr() == lrs[4]);
  for (int i = 5; i < 12; ++i) {
    INFO("step " << i + 1);
    resumed->step();
    REQUIRE(resumed->get_last_lr() == lrs[i]);
    REQUIRE(momentums(*resumed_opt) == moms[i]);
  }
}

TEST_CASE("scheduler state dicts round trip", "[optim][scheduler][state_dict]") {
  SECTION("StepLR") {
    check_round_trip([](optim::Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); });
  }
  SECTION("MultiStepLR") {
    check_round_trip([](optim::Optimizer& o) {
      return std::make_unique<optim::MultiStepLR>(o, std::vector<int64_t>{2, 7, 7}, 0.5);
    });
  }
  SECTION("CosineAnnealingLR") {
    check_round_trip([](optim::Optimizer& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 4, 1e-3); });
  }
  SECTION("LinearLR") {
    check_round_trip([](optim::Optimizer& o) { return std::make_unique<optim::LinearLR>(o, 0.2, 1.0, 8); });
  }
  SECTION("LambdaLR") {
    check_round_trip([](optim::Optimizer& o) {
      return std::make_unique<optim::LambdaLR>(o, [](int64_t t) { return 1.0 / (1 + t * t); });
    });
  }
  SECTION("OneCycleLR") {
    check_round_trip([](optim::Optimizer& o) {
      return std::make_unique<optim::OneCycleLR>(o, optim::OneCycleLROptions({1.0, 0.5}, 12).three_phase(true));
    });
  }
}

TEST_CASE("scheduler state dicts hold PyTorch's keys and the settings", "[optim][scheduler][state_dict]") {
  auto opt = two_group_sgd();
  optim::StepLR scheduler(*opt, 3, 0.5);
  scheduler.step();
  nlohmann::json state = scheduler.state_dict();
  REQUIRE(state["last_epoch"] == 1);
  REQUIRE(state["_step_count"] == 2);
  REQUIRE(state["base_lrs"] == nlohmann::json::array({0.1, 0.02}));
  REQUIRE(state["_last_lr"] == nlohmann::json::array({0.1, 0.02}));
  REQUIRE(state["step_size"] == 3);
  REQUIRE(state["gamma"] == 0.5);

  state["gamma"] = 0.25;  // settings come back from the state dict too, as in PyTorch
  optim::StepLR loaded(*opt, 10);
  loaded.load_state_dict(state);
  loaded.step();
  loaded.step();
  REQUIRE(loaded.get_last_lr() == std::vector<double>{0.1 * 0.25, 0.02 * 0.25});

  state.erase("last_epoch");
  REQUIRE_THROWS_WITH(loaded.load_state_dict(state), Contains("StepLR: the state dict has no \"last_epoch\""));
}

TEST_CASE("LambdaLR: each group's base lr times the function of the step; no function in the state dict",
          "[optim][scheduler]") {
  auto opt = two_group_sgd();
  optim::LambdaLR scheduler(*opt, [](int64_t t) { return t < 2 ? 0.5 * t : 1.0 / t; });
  REQUIRE(scheduler.get_last_lr() == std::vector<double>{0.0, 0.0});
  std::vector<std::vector<double>> lrs;
  for (int t = 1; t <= 4; ++t) {
    scheduler.step();
    lrs.push_back(scheduler.get_last_lr());
  }
  REQUIRE(lrs == std::vector<std::vector<double>>{{0.1 * 0.5, 0.02 * 0.5},
                                                  {0.1 * 0.5, 0.02 * 0.5},
                                                  {0.1 * (1.0 / 3), 0.02 * (1.0 / 3)},
                                                  {0.1 * 0.25, 0.02 * 0.25}});
  REQUIRE(opt->param_groups()[1].options().get_lr() == 0.02 * 0.25);
  REQUIRE(scheduler.state_dict()["lr_lambdas"] == nlohmann::json::array({nullptr, nullptr}));
  REQUIRE_THROWS_WITH(optim::LambdaLR(*opt, nullptr), Contains("LambdaLR: lr_lambda is empty"));
}

TEST_CASE("a second scheduler starts from the first one's initial lr", "[optim][scheduler]") {
  auto opt = two_group_sgd();
  optim::LinearLR warmup(*opt, 0.5, 1.0, 4);
  REQUIRE(opt->param_groups()[0].options().get_lr() == 0.05);
  REQUIRE(opt->param_groups()[0].initial_lr == 0.1);
  optim::CosineAnnealingLR cosine(*opt, 10);
  REQUIRE(cosine.base_lrs() == std::vector<double>{0.1, 0.02});
  REQUIRE(opt->state_dict().param_groups[1]["initial_lr"] == 0.02);
}

TEST_CASE("OneCycleLR sets the initial lr and momentum at once, and stops at total_steps", "[optim][scheduler]") {
  auto opt = two_group_sgd();
  optim::OneCycleLR scheduler(*opt, optim::OneCycleLROptions(0.5, 10).div_factor(10).max_momentum({0.9, 0.8}));
  // At pct 0 the cosine lands on the start values up to rounding, as in PyTorch.
  REQUIRE(scheduler.get_last_lr()[0] == Approx(0.05));
  REQUIRE(scheduler.get_last_lr()[1] == Approx(0.05));
  REQUIRE(momentums(*opt)[0] == Approx(0.9));
  REQUIRE(momentums(*opt)[1] == Approx(0.8));
  for (int i = 0; i < 10; ++i) scheduler.step();
  REQUIRE_THROWS_WITH(scheduler.step(),
                      Contains("OneCycleLR: tried to step 11 times; the specified number of total steps is 10"));
}

TEST_CASE("schedulers reject bad arguments, naming the value", "[optim][scheduler][errors]") {
  auto opt = two_group_sgd();
  REQUIRE_THROWS_WITH(optim::StepLR(*opt, 0), Contains("StepLR: step_size must be positive, got 0"));
  REQUIRE_THROWS_WITH(optim::CosineAnnealingLR(*opt, -3), Contains("T_max must be positive, got -3"));
  REQUIRE_THROWS_WITH(optim::LinearLR(*opt, 0.0), Contains("start_factor must be greater than 0 and at most 1, got 0"));
  REQUIRE_THROWS_WITH(optim::LinearLR(*opt, 0.5, 1.5), Contains("end_factor must be between 0 and 1, got 1.5"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(*opt, optim::OneCycleLROptions(0.1, 0)),
                      Contains("expected a positive total_steps, got 0"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(*opt, optim::OneCycleLROptions(0.1, 10).pct_start(1.5)),
                      Contains("expected pct_start between 0 and 1, got 1.5"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(*opt, optim::OneCycleLROptions(0.1, 10).anneal_strategy("exp")),
                      Contains("anneal_strategy must be \"cos\" or \"linear\", got \"exp\""));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(*opt, optim::OneCycleLROptions({0.1, 0.2, 0.3}, 10)),
                      Contains("expected 2 values for max_lr (one per parameter group), got 3"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(*opt, optim::OneCycleLROptions(0.1, 10).base_momentum({0.8, 0.8, 0.8})),
                      Contains("expected 2 values for base_momentum"));
}

TEST_CASE("a scheduler notices a parameter group added after it", "[optim][scheduler][errors]") {
  auto opt = two_group_sgd();
  optim::StepLR scheduler(*opt, 2);
  opt->add_param_group(optim::ParamGroup({zeros({1}, TensorOptions().requires_grad(true))}));
  REQUIRE_THROWS_WITH(scheduler.step(),
                      Contains("StepLR: the optimizer has 3 parameter groups, but the scheduler was made for 2"));
}

}  // namespace
}  // namespace brisk::test
