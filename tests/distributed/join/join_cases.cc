#include "tests/distributed/join/join_cases.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "autograd/grad_mode.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/join.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tensor/native/ops.h"

namespace brisk::dist::testing {

namespace {

using json = nlohmann::json;

const json& fixture() {
  static const json parsed = [] {
    std::ifstream in("tests/fixtures/join.json");
    BRISK_CHECK(in.good(), "join_cases: cannot open tests/fixtures/join.json (run from the runfiles root)");
    return json::parse(in);
  }();
  return parsed;
}

const json& find_case(const std::string& name) {
  for (const json& c : fixture()["cases"]) {
    if (c["name"] == name) return c;
  }
  BRISK_FAIL("join_cases: no case {} in tests/fixtures/join.json", name);
}

Tensor from_json(const json& t, Device device) {
  return native::from_vector<double>(t["data"].get<std::vector<double>>(),
                                     Shape(t["shape"].get<std::vector<int64_t>>()),
                                     TensorOptions(kFloat64).device(device));
}

double max_abs_diff(const Tensor& brisk, const json& torch) {
  const std::vector<double> ours = native::to(brisk, kCPU, kFloat64).to_vector<double>();
  const std::vector<double> theirs = torch["data"].get<std::vector<double>>();
  BRISK_CHECK(ours.size() == theirs.size(), "join_cases: {} values against the fixture's {}", ours.size(),
              theirs.size());
  double diff = 0;
  for (size_t i = 0; i < ours.size(); ++i) diff = std::max(diff, std::abs(ours[i] - theirs[i]));
  return diff;
}

// The largest difference over the named tensors; a tensor that is undefined counts as infinite.
double max_diff(const nn::StateDict& tensors, const json& expected, bool grads) {
  double diff = 0;
  for (const auto& [name, param] : tensors) {
    const Tensor& t = grads ? param.grad() : param;
    diff = std::max(diff, t.defined() ? max_abs_diff(t, expected.at(name)) : INFINITY);
  }
  return diff;
}

}  // namespace

std::vector<std::string> join_case_names(int world_size) {
  std::vector<std::string> names;
  for (const json& c : fixture()["cases"]) {
    if (c["world_size"] == world_size) names.push_back(c["name"]);
  }
  return names;
}

JoinCaseOutcome run_join_case(const std::string& name, const std::string& optimizer,
                              const std::shared_ptr<ProcessGroup>& group) {
  const json& c = find_case(name);
  BRISK_CHECK(c["world_size"] == group->size(), "join_cases: case {} needs {} ranks, the group has {}", name,
              c["world_size"].get<int>(), group->size());
  const int rank = group->rank();
  const Device device = group->device();

  nn::Sequential model = c["model"] == "mlp"
                             ? nn::Sequential(nn::Linear(4, 5), nn::Tanh(), nn::Linear(5, 3))
                             : nn::Sequential(nn::Linear(4, 5), nn::BatchNorm1d(5), nn::Tanh(), nn::Linear(5, 3));
  model->to(device, kFloat64);
  {
    NoGradGuard no_grad;
    for (auto& [state_name, tensor] : model->state_dict()) {
      native::copy_(tensor, from_json(fixture()["models"][c["model"].get<std::string>()].at(state_name), device));
    }
  }
  auto ddp = DistributedDataParallel(model, group);
  auto sgd = [](std::vector<Tensor> params) {
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(0.1).momentum(0.9));
  };
  std::unique_ptr<optim::Optimizer> plain;
  std::unique_ptr<ZeroRedundancyOptimizer> zero;
  std::vector<std::reference_wrapper<Joinable>> joinables{*ddp};
  if (optimizer == "zero") {
    zero = std::make_unique<ZeroRedundancyOptimizer>(ddp->parameters(), sgd, group);
    joinables.push_back(*zero);
  } else {
    BRISK_CHECK(optimizer == "sgd", "join_cases: unknown optimizer {} (sgd or zero)", optimizer);
    plain = sgd(ddp->parameters());
  }

  JoinCaseOutcome outcome;
  const nn::StateDict params = model->named_parameters();
  {
    Join join(joinables, JoinOptions().divide_by_initial_world_size(c["divide_by_initial_world_size"].get<bool>()));
    for (const json& batch : c["batches"][rank]) {
      if (zero) {
        zero->zero_grad();
      } else {
        plain->zero_grad();
      }
      nn::functional::mse_loss(ddp->forward(from_json(batch["x"], device)), from_json(batch["y"], device)).backward();
      outcome.max_grad_diff = std::max(outcome.max_grad_diff, max_diff(params, c["grads"][outcome.iterations], true));
      ++outcome.iterations;
      if (zero) {
        zero->step();
      } else {
        plain->step();
      }
    }
    join.finish();
  }
  outcome.max_param_diff = max_diff(model->state_dict(), c["final"][rank], false);
  outcome.max_final_grad_diff = max_diff(params, c["grads"].back(), true);
  return outcome;
}

void train_in_join(const std::shared_ptr<ProcessGroup>& group, int steps, const JoinOptions& options,
                   bool call_ddp_join) {
  nn::Sequential model(nn::Linear(3, 2));
  model->to(group->device());
  auto ddp = DistributedDataParallel(model, group);
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  Join join({*ddp}, options);
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    ddp->forward(native::ones({2, 3}, TensorOptions(kFloat32).device(group->device()))).sum().backward();
    opt.step();
  }
  if (call_ddp_join) ddp->join();
  join.finish();
}

}  // namespace brisk::dist::testing
