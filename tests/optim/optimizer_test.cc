// The optimizer base and the optimizers' options: parameter groups, zero_grad, frozen
// parameters, the Adam bias correction at the first step, and the errors for bad parameters
// and bad options.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "optim/optim.h"

namespace brisk::test {
namespace {

using Catch::Contains;

Tensor leaf(std::vector<float> values) {
  return tensor(values, {static_cast<int64_t>(values.size())}).requires_grad_();
}

TEST_CASE("options have PyTorch's defaults and chained setters", "[optim]") {
  optim::SGDOptions sgd = optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(1e-4);
  REQUIRE(sgd.lr() == 0.01);
  REQUIRE(sgd.momentum() == 0.9);
  REQUIRE(sgd.nesterov());
  REQUIRE(sgd.weight_decay() == 1e-4);
  REQUIRE(sgd.dampening() == 0.0);
  REQUIRE_FALSE(sgd.maximize());

  optim::AdamOptions adam;
  REQUIRE(adam.lr() == 1e-3);
  REQUIRE(adam.betas() == std::make_tuple(0.9, 0.999));
  REQUIRE(adam.eps() == 1e-8);
  REQUIRE(adam.weight_decay() == 0.0);
  REQUIRE_FALSE(adam.decoupled_weight_decay());

  optim::AdamWOptions adamw(2e-3);
  REQUIRE(adamw.lr() == 2e-3);
  REQUIRE(adamw.weight_decay() == 1e-2);
  REQUIRE(adamw.decoupled_weight_decay());
}

TEST_CASE("each parameter group steps with its own lr", "[optim]") {
  Tensor a = leaf({1, 1});
  Tensor b = leaf({1, 1});
  Tensor c = leaf({1});
  optim::SGD opt({optim::ParamGroup({a}), optim::ParamGroup({b}, optim::SGDOptions(0.5))}, optim::SGDOptions(0.1));
  opt.add_param_group(optim::ParamGroup({c}));  // takes the defaults
  REQUIRE(opt.param_groups().size() == 3);
  REQUIRE(opt.param_groups()[1].options().get_lr() == 0.5);
  REQUIRE(opt.param_groups()[2].options().get_lr() == 0.1);

  (a.sum() + b.sum() + c.sum()).backward();
  opt.step();
  REQUIRE(a.to_vector<float>() == std::vector<float>{0.9f, 0.9f});
  REQUIRE(b.to_vector<float>() == std::vector<float>{0.5f, 0.5f});
  REQUIRE(c.to_vector<float>() == std::vector<float>{0.9f});
}

TEST_CASE("zero_grad drops gradients or zeroes them in place", "[optim]") {
  Tensor w = leaf({1, 2, 3});
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  (w * w).sum().backward();
  Tensor grad = w.grad();
  opt.zero_grad(false);
  REQUIRE(w.grad().is_same(grad));
  REQUIRE(grad.to_vector<float>() == std::vector<float>{0, 0, 0});
  opt.zero_grad();
  REQUIRE_FALSE(w.grad().defined());
}

TEST_CASE("parameters without a gradient are skipped", "[optim]") {
  Tensor used = leaf({1});
  Tensor frozen = tensor({5.0f});
  Tensor unreached = leaf({7});
  optim::Adam opt({used, frozen, unreached}, optim::AdamOptions(0.1));
  (used * 3).sum().backward();
  opt.step();
  REQUIRE(frozen.to_vector<float>() == std::vector<float>{5});
  REQUIRE(unreached.to_vector<float>() == std::vector<float>{7});
  REQUIRE(opt.find_state(unreached) == nullptr);
  REQUIRE(opt.find_state(used) != nullptr);
}

TEST_CASE("Adam's bias correction makes the first step about lr per element", "[optim]") {
  Tensor p = zeros({3}, TensorOptions(kFloat64).requires_grad(true));
  optim::Adam opt({p}, optim::AdamOptions(0.01));
  p.set_grad(tensor({2.0, -0.5, 1e-3}, kFloat64));
  opt.step();
  std::vector<double> moved = p.to_vector<double>();
  REQUIRE(moved[0] == Approx(-0.01).epsilon(1e-7));
  REQUIRE(moved[1] == Approx(0.01).epsilon(1e-7));
  REQUIRE(moved[2] == Approx(-0.01).epsilon(1e-4));  // eps is felt only by tiny gradients
  opt.step();
  opt.step();
  const Tensor& step = opt.state(p).at("step");
  REQUIRE(step.dtype() == kFloat32);
  REQUIRE(step.is_cpu());
  REQUIRE(step.item<float>() == 3.0f);
}

TEST_CASE("SGD with maximize ascends", "[optim]") {
  Tensor p = leaf({1, 2});
  optim::SGD opt({p}, optim::SGDOptions(0.5).maximize(true));
  p.sum().backward();
  opt.step();
  REQUIRE(p.to_vector<float>() == std::vector<float>{1.5f, 2.5f});
}

TEST_CASE("optimizers reject parameters they cannot optimize", "[optim][errors]") {
  Tensor w = leaf({1, 2});
  REQUIRE_THROWS_WITH(optim::SGD(std::vector<Tensor>{}), Contains("SGD: optimizer got an empty parameter list"));
  REQUIRE_THROWS_WITH(optim::SGD({w * 2}), Contains("can't optimize a non-leaf tensor") && Contains("[2] float32"));
  REQUIRE_THROWS_WITH(optim::Adam({w, Tensor()}), Contains("Adam: parameter 1 of group 0 is an undefined tensor"));
  REQUIRE_THROWS_WITH(optim::SGD({optim::ParamGroup({w}), optim::ParamGroup({w})}),
                      Contains("parameter 0 of group 1") && Contains("already optimized as parameter 0 of group 0"));
  optim::SGD opt({w});
  REQUIRE_THROWS_WITH(opt.add_param_group(optim::ParamGroup({w})), Contains("already optimized"));
  REQUIRE(opt.param_groups().size() == 1);
}

TEST_CASE("invalid options are rejected, naming the value", "[optim][errors]") {
  Tensor w = leaf({1});
  REQUIRE_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(-0.1)), Contains("SGD: invalid learning rate: -0.1"));
  REQUIRE_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(0.1).momentum(-0.5)), Contains("invalid momentum value: -0.5"));
  REQUIRE_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(0.1).weight_decay(-1)),
                      Contains("invalid weight_decay value: -1"));
  REQUIRE_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(0.1).nesterov(true)),
                      Contains("Nesterov momentum requires a momentum and zero dampening (momentum 0, dampening 0)"));
  REQUIRE_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
                      Contains("dampening 0.1"));
  REQUIRE_THROWS_WITH(optim::Adam({w}, optim::AdamOptions().betas({1.0, 0.999})),
                      Contains("Adam: invalid beta parameter at index 0: 1"));
  REQUIRE_THROWS_WITH(optim::Adam({w}, optim::AdamOptions().betas({0.9, -0.1})),
                      Contains("invalid beta parameter at index 1: -0.1"));
  REQUIRE_THROWS_WITH(optim::AdamW({w}, optim::AdamWOptions().eps(-1e-8)), Contains("AdamW: invalid epsilon value"));
  REQUIRE_THROWS_WITH(optim::AdamW({w}, optim::AdamOptions()), Contains("AdamW") && Contains("AdamWOptions"));
  // A group's own options are checked too, including their type.
  REQUIRE_THROWS_WITH(optim::SGD({optim::ParamGroup({w}, optim::SGDOptions(-2))}),
                      Contains("invalid learning rate: -2"));
  REQUIRE_THROWS_WITH(optim::SGD({optim::ParamGroup({w}, optim::AdamOptions())}),
                      Contains("SGD: a parameter group has options of another optimizer"));
}

TEST_CASE("in-place updates under NoGradGuard leave no history", "[optim]") {
  Tensor w = leaf({1, 2});
  optim::AdamW opt({w}, optim::AdamWOptions(0.1));
  (w * w).sum().backward();
  opt.step();
  REQUIRE(w.is_leaf());
  REQUIRE(w.requires_grad());
  REQUIRE(w.grad_fn() == nullptr);
  for (const auto& [name, t] : opt.state(w)) {
    INFO(name);
    REQUIRE_FALSE(t.requires_grad());
  }
}

}  // namespace
}  // namespace brisk::test
