// LR schedules over 30 steps against PyTorch's (tests/fixtures/optim.json): StepLR,
// MultiStepLR, CosineAnnealingLR past T_max, LinearLR warm-up and decay, OneCycleLR (cos and
// linear, two and three phases, momentum and beta1 cycling) and LinearLR chained with
// CosineAnnealingLR. The lrs are computed in the same float64 operations as PyTorch's, so
// they must be equal, not just close.
#include <catch2/catch.hpp>

#include <memory>

#include "optim/optim.h"
#include "tests/optim/fixture.h"

namespace brisk::test {
namespace {

std::unique_ptr<optim::Optimizer> make_optimizer(const json& spec) {
  std::vector<optim::ParamGroup> groups;
  const bool sgd = spec.at("optimizer") == "sgd";
  for (const json& g : spec.at("groups")) {
    std::vector<Tensor> params = {zeros({1}, TensorOptions().requires_grad(true))};
    double lr = g.at("lr").get<double>();
    if (sgd) {
      groups.emplace_back(params, optim::SGDOptions(lr).momentum(g.at("momentum").get<double>()));
    } else {
      auto betas = g.at("betas").get<std::vector<double>>();
      groups.emplace_back(params, optim::AdamOptions(lr).betas({betas[0], betas[1]}));
    }
  }
  if (sgd) return std::make_unique<optim::SGD>(groups);
  return std::make_unique<optim::Adam>(groups);
}

std::unique_ptr<optim::LRScheduler> make_scheduler(optim::Optimizer& opt, const json& spec) {
  const std::string type = spec.at("type").get<std::string>();
  if (type == "StepLR") {
    return std::make_unique<optim::StepLR>(opt, spec.at("step_size").get<int64_t>(), spec.at("gamma").get<double>());
  }
  if (type == "MultiStepLR") {
    return std::make_unique<optim::MultiStepLR>(opt, spec.at("milestones").get<std::vector<int64_t>>(),
                                                spec.at("gamma").get<double>());
  }
  if (type == "CosineAnnealingLR") {
    return std::make_unique<optim::CosineAnnealingLR>(opt, spec.at("T_max").get<int64_t>(), spec.value("eta_min", 0.0));
  }
  if (type == "LinearLR") {
    return std::make_unique<optim::LinearLR>(opt, spec.value("start_factor", 1.0 / 3), spec.value("end_factor", 1.0),
                                             spec.value("total_iters", int64_t(5)));
  }
  REQUIRE(type == "OneCycleLR");
  optim::OneCycleLROptions options(spec.at("max_lr").get<std::vector<double>>(), spec.at("total_steps").get<int64_t>());
  options.pct_start(spec.value("pct_start", 0.3))
      .anneal_strategy(spec.value("anneal_strategy", std::string("cos")))
      .cycle_momentum(spec.value("cycle_momentum", true))
      .base_momentum(spec.value("base_momentum", 0.85))
      .max_momentum(spec.value("max_momentum", 0.95))
      .div_factor(spec.value("div_factor", 25.0))
      .final_div_factor(spec.value("final_div_factor", 1e4))
      .three_phase(spec.value("three_phase", false));
  return std::make_unique<optim::OneCycleLR>(opt, options);
}

std::vector<double> group_momentums(const optim::Optimizer& opt) {
  std::vector<double> out;
  for (const auto& group : opt.param_groups()) out.push_back(group.options().get_momentum());
  return out;
}

TEST_CASE("LR schedules match PyTorch's exactly", "[optim][scheduler][fixture]") {
  const json& cases = optim_fixture().at("schedulers");
  REQUIRE(cases.size() >= 8);
  for (const json& spec : cases) {
    INFO("case " << spec.at("name").get<std::string>());
    auto opt = make_optimizer(spec);
    std::vector<std::unique_ptr<optim::LRScheduler>> schedulers;
    for (const json& s : spec.at("schedulers")) schedulers.push_back(make_scheduler(*opt, s));
    const auto lrs = spec.at("lrs").get<std::vector<std::vector<double>>>();
    std::vector<std::vector<double>> momentums;
    if (spec.contains("momentums")) momentums = spec.at("momentums").get<std::vector<std::vector<double>>>();
    for (size_t step = 0; step < lrs.size(); ++step) {
      INFO("after " << step << " steps");
      if (step > 0) {
        opt->step();
        for (auto& s : schedulers) s->step();
      }
      REQUIRE(schedulers.back()->get_last_lr() == lrs[step]);
      if (!momentums.empty()) REQUIRE(group_momentums(*opt) == momentums[step]);
    }
  }
}

}  // namespace
}  // namespace brisk::test
