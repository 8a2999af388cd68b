// Optimizer state dicts: the layout (PyTorch's, split into JSON and named tensors), the
// round trip (save after 10 steps, load into a fresh optimizer, go on: identical to an
// uninterrupted run), and the errors of a mismatched load, which leaves the optimizer as it was.
#include <catch2/catch.hpp>

#include <functional>

#include "optim/optim.h"
#include "tests/optim/fixture.h"

namespace brisk::test {
namespace {

using Catch::Contains;
using Params = std::map<std::string, Tensor>;
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(const Params&)>;

void train(optim::Optimizer& opt, const Params& params, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    problem_loss(params).backward();
    opt.step();
  }
}

// Fresh leaves with the values of `params`.
Params copy_params(const Params& params) {
  Params out;
  for (const auto& [name, p] : params) out[name] = p.detach().clone().requires_grad_(p.requires_grad());
  return out;
}

std::vector<Tensor> all(const Params& p) { return {p.at("w"), p.at("b"), p.at("v"), p.at("frozen")}; }

void check_round_trip(const MakeOptimizer& make) {
  Params straight = problem_params(kFloat64);
  auto reference = make(straight);
  train(*reference, straight, 20);

  Params first = problem_params(kFloat64);
  auto saved = make(first);
  train(*saved, first, 10);
  optim::OptimizerState state = saved->state_dict();

  Params resumed = copy_params(first);
  auto loaded = make(resumed);
  loaded->load_state_dict(state);
  // The loaded state is a copy: going on with the saved optimizer must not disturb it.
  train(*saved, first, 1);
  train(*loaded, resumed, 10);
  for (const auto& [name, p] : straight) {
    INFO("parameter " << name);
    REQUIRE(equal(resumed.at(name), p));
  }
}

TEST_CASE("save after 10 steps, load, continue: identical to 20 steps", "[optim][state_dict]") {
  SECTION("SGD, Nesterov") {
    check_round_trip([](const Params& p) {
      return std::make_unique<optim::SGD>(all(p), optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
    });
  }
  SECTION("Adam, amsgrad, two groups") {
    check_round_trip([](const Params& p) {
      std::vector<optim::ParamGroup> groups = {
          optim::ParamGroup({p.at("w"), p.at("b")}),
          optim::ParamGroup({p.at("v"), p.at("frozen")}, optim::AdamOptions(0.05).amsgrad(true))};
      return std::make_unique<optim::Adam>(groups, optim::AdamOptions(0.01));
    });
  }
  SECTION("AdamW") {
    check_round_trip([](const Params& p) {
      return std::make_unique<optim::AdamW>(all(p), optim::AdamWOptions(0.02).weight_decay(0.1));
    });
  }
}

TEST_CASE("state_dict has PyTorch's layout", "[optim][state_dict]") {
  Params p = problem_params(kFloat64);
  optim::Adam opt({optim::ParamGroup({p.at("w"), p.at("frozen")}), optim::ParamGroup({p.at("v")})},
                  optim::AdamOptions(0.01).amsgrad(true));
  opt.param_groups()[1].initial_lr = 0.5;
  train(opt, p, 2);
  optim::OptimizerState state = opt.state_dict();

  const nlohmann::json& groups = state.param_groups;
  REQUIRE(groups.size() == 2);
  REQUIRE(groups[0]["params"] == nlohmann::json::array({0, 1}));
  REQUIRE(groups[1]["params"] == nlohmann::json::array({2}));
  REQUIRE(groups[0]["lr"] == 0.01);
  REQUIRE(groups[0]["betas"] == nlohmann::json::array({0.9, 0.999}));
  REQUIRE(groups[0]["amsgrad"] == true);
  REQUIRE_FALSE(groups[0].contains("initial_lr"));
  REQUIRE(groups[1]["initial_lr"] == 0.5);

  // The frozen parameter 1 never had a gradient, so it has no state.
  std::vector<std::string> keys;
  for (const auto& [key, value] : state.tensors) keys.push_back(key);
  REQUIRE(keys == std::vector<std::string>{"state.0.exp_avg", "state.0.exp_avg_sq", "state.0.max_exp_avg_sq",
                                           "state.0.step", "state.2.exp_avg", "state.2.exp_avg_sq",
                                           "state.2.max_exp_avg_sq", "state.2.step"});
  REQUIRE(state.tensors.at("state.2.step").item<float>() == 2.0f);
  REQUIRE(state.tensors.at("state.0.exp_avg").sizes() == Shape{3, 4});
  // The optimizer's own tensors, as PyTorch's state_dict.
  REQUIRE(state.tensors.at("state.0.exp_avg").is_same(opt.state(p.at("w")).at("exp_avg")));
}

TEST_CASE("load_state_dict restores group options and moves state to the parameter's dtype", "[optim][state_dict]") {
  Params p = problem_params(kFloat64);
  optim::SGD source({p.at("w")}, optim::SGDOptions(0.3).momentum(0.8).dampening(0.1));
  train(source, p, 1);
  optim::OptimizerState state = source.state_dict();
  state.param_groups[0]["initial_lr"] = 0.3;

  Tensor w32 = p.at("w").detach().to(kFloat32).requires_grad_();
  optim::SGD target({w32}, optim::SGDOptions(0.01));
  target.load_state_dict(state);
  const auto& options = static_cast<const optim::SGDOptions&>(target.param_groups()[0].options());
  REQUIRE(options.lr() == 0.3);
  REQUIRE(options.momentum() == 0.8);
  REQUIRE(options.dampening() == 0.1);
  REQUIRE(target.param_groups()[0].initial_lr == 0.3);
  const Tensor& buf = target.state(w32).at("momentum_buffer");
  REQUIRE(buf.dtype() == kFloat32);
  REQUIRE(allclose(buf.to(kFloat64), state.tensors.at("state.0.momentum_buffer"), 1e-6, 1e-7));
}

TEST_CASE("a mismatched state dict is rejected and changes nothing", "[optim][state_dict][errors]") {
  Params p = problem_params(kFloat64);
  optim::Adam source({p.at("w"), p.at("b")}, optim::AdamOptions(0.1));
  train(source, p, 1);
  const optim::OptimizerState good = source.state_dict();

  Params q = copy_params(p);
  optim::Adam target({q.at("w"), q.at("b")}, optim::AdamOptions(0.01));
  auto unchanged = [&] {
    REQUIRE(target.param_groups()[0].options().get_lr() == 0.01);
    REQUIRE(target.find_state(q.at("w")) == nullptr);
  };

  optim::OptimizerState state = good;
  state.param_groups.push_back(state.param_groups[0]);
  REQUIRE_THROWS_WITH(target.load_state_dict(state), Contains("Adam: loaded state dict has 2 parameter groups, the "
                                                              "optimizer has 1"));
  state = good;
  state.param_groups[0]["params"] = nlohmann::json::array({0});
  REQUIRE_THROWS_WITH(target.load_state_dict(state),
                      Contains("doesn't match the size of optimizer's group (group 0: 1 parameters saved, 2 in the "
                               "optimizer)"));
  state = good;
  state.tensors["state.1.exp_avg"] = zeros({4});
  REQUIRE_THROWS_WITH(target.load_state_dict(state),
                      Contains("\"state.1.exp_avg\" in the state dict has shape [4] but parameter 1 has shape [3]"));
  state = good;
  state.tensors["state.7.exp_avg"] = zeros({3});
  REQUIRE_THROWS_WITH(target.load_state_dict(state), Contains("has \"state.7.exp_avg\" but no parameter 7"));
  state = good;
  state.tensors["momentum"] = zeros({3});
  REQUIRE_THROWS_WITH(target.load_state_dict(state), Contains("unexpected tensor \"momentum\""));
  state = good;
  state.param_groups[0].erase("eps");
  REQUIRE_THROWS_WITH(target.load_state_dict(state), Contains("Adam: the state dict has no \"eps\""));
  state = good;
  state.param_groups[0]["lr"] = -1.0;
  REQUIRE_THROWS_WITH(target.load_state_dict(state), Contains("invalid learning rate: -1"));
  unchanged();

  optim::SGD sgd({q.at("w"), q.at("b")});
  REQUIRE_THROWS_WITH(sgd.load_state_dict(good), Contains("SGD: the state dict has no \"momentum\""));
}

}  // namespace
}  // namespace brisk::test
