// Every optimizer's trajectory over 20 steps on the fixture problem, against PyTorch's
// (tests/fixtures/optim.json): SGD plain, with momentum and dampening, Nesterov and weight
// decay, maximize, per-group options; Adam with and without amsgrad, weight decay,
// maximize, per-group options; AdamW; float64 and float32. Gradients come from Brisk's
// autograd; a frozen parameter (no gradient) must stay put.
#include <catch2/catch.hpp>

#include <memory>

#include "optim/optim.h"
#include "tests/optim/fixture.h"

namespace brisk::test {
namespace {

std::unique_ptr<optim::Optimizer> make_optimizer(const json& spec, const std::map<std::string, Tensor>& params) {
  const std::string kind = spec.at("optimizer").get<std::string>();
  std::vector<optim::ParamGroup> groups;
  std::unique_ptr<optim::OptimizerOptions> defaults;
  for (const json& group : spec.at("groups")) {
    std::unique_ptr<optim::OptimizerOptions> options;
    if (kind == "sgd") {
      options = std::make_unique<optim::SGDOptions>();
    } else {
      options = std::make_unique<optim::AdamOptions>();
    }
    options->from_json(group.at("options"));
    std::vector<Tensor> tensors;
    for (const json& name : group.at("params")) tensors.push_back(params.at(name.get<std::string>()));
    groups.emplace_back(tensors, *options);
    if (!defaults) defaults = std::move(options);
  }
  if (kind == "sgd") return std::make_unique<optim::SGD>(groups, static_cast<optim::SGDOptions&>(*defaults));
  auto& adam_defaults = static_cast<optim::AdamOptions&>(*defaults);
  if (kind == "adam") return std::make_unique<optim::Adam>(groups, adam_defaults);
  return std::make_unique<optim::AdamW>(groups, adam_defaults);
}

TEST_CASE("optimizer trajectories match PyTorch's", "[optim][fixture]") {
  const json& cases = optim_fixture().at("optimizers");
  REQUIRE(cases.size() >= 10);
  for (const json& spec : cases) {
    const std::string name = spec.at("name").get<std::string>();
    const bool single = spec.at("dtype") == "float32";
    // float64 checks the update equations to rounding; float32 the realistic path.
    const double rtol = single ? 2e-5 : 1e-10;
    const double atol = single ? 2e-6 : 1e-12;
    INFO("case " << name);
    auto params = problem_params(single ? kFloat32 : kFloat64);
    auto optimizer = make_optimizer(spec, params);
    const json& trajectory = spec.at("trajectory");
    for (size_t step = 0; step < trajectory.size(); ++step) {
      optimizer->zero_grad();
      problem_loss(params).backward();
      optimizer->step();
      for (const auto& [param, expected] : trajectory[step].items()) {
        std::string why;
        bool ok = matches(params.at(param), expected, rtol, atol, why);
        INFO("after step " << step + 1 << ", parameter " << param << ": " << why);
        REQUIRE(ok);
      }
    }
  }
}

}  // namespace
}  // namespace brisk::test
