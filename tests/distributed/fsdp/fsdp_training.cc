#include "tests/distributed/fsdp/fsdp_training.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/cifar_resnet.h"
#include "models/mlp.h"
#include "models/resnet18.h"
#include "nn/functional.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"

namespace brisk::dist::testing {

namespace {

namespace F = nn::functional;

int64_t num_classes(const FsdpScenario& scenario) { return scenario.model == FsdpModel::kMLP ? 5 : 10; }

// Global batch `step`: inputs and class targets, the same in every process.
std::pair<Tensor, Tensor> global_batch(const FsdpScenario& scenario, int step) {
  Generator gen(1000 + step);
  const Shape shape = scenario.model == FsdpModel::kMLP ? Shape{scenario.global_batch, 10}
                                                         : Shape{scenario.global_batch, 3, 8, 8};
  Tensor inputs = native::empty(shape, kFloat64);
  native::normal_(inputs, 0.0, 1.0, &gen);
  Tensor targets = native::randint(0, num_classes(scenario), {scenario.global_batch}, kInt64, &gen);
  return {inputs, targets};
}

std::unique_ptr<optim::Optimizer> make_optimizer(const FsdpScenario& scenario, const std::vector<Tensor>& params) {
  // ResNet-20's BatchNorms in eval mode do not normalize: smaller steps keep it from diverging.
  const double scale = scenario.model == FsdpModel::kMLP ? 1.0 : 0.01;
  if (scenario.optimizer == FsdpOptimizer::kAdam) {
    return std::make_unique<optim::Adam>(params, optim::AdamOptions(0.01 * scale));
  }
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1 * scale).momentum(0.9));
}

// A call of the model as a module, so that its (root unit's) forward hooks run.
Tensor call(nn::Module& model, const Tensor& x) {
  return nn::forward_naming_module(model, [&] { return model.forward(x); });
}

nn::StateDict cpu_copies(const nn::StateDict& tensors) {
  nn::StateDict out;
  for (const auto& item : tensors) out.insert(item.key(), native::clone(item.value().to(kCPU)));
  return out;
}

std::vector<std::shared_ptr<nn::Module>> block_modules(nn::Module& model) {
  if (auto* mlp = model.as<models::MLPImpl>()) return mlp->layers->children();
  std::vector<std::shared_ptr<nn::Module>> blocks;
  if (auto* resnet18 = model.as<models::ResNet18Impl>()) {
    for (const auto& stage : {resnet18->layer1, resnet18->layer2, resnet18->layer3, resnet18->layer4}) {
      for (const auto& block : stage->children()) blocks.push_back(block);
    }
    return blocks;
  }
  auto& resnet = *model.as<models::CIFARResNetImpl>();
  for (const auto& stage : {resnet.layer1, resnet.layer2, resnet.layer3}) {
    for (const auto& block : stage->children()) blocks.push_back(block);
  }
  return blocks;
}

std::shared_ptr<nn::Module> first_unit_module(nn::Module& model) { return block_modules(model).front(); }

}  // namespace

std::string describe(const FsdpScenario& scenario) {
  return fmt::format("{} {} steps={} reshard_after_forward={} cpu_offload={}",
                     scenario.model == FsdpModel::kMLP        ? "MLP"
                     : scenario.model == FsdpModel::kResNet20 ? "ResNet-20"
                                                              : "ResNet-18",
                     scenario.optimizer == FsdpOptimizer::kAdam ? "Adam" : "SGD(momentum)", scenario.steps,
                     scenario.reshard_after_forward, scenario.cpu_offload);
}

std::shared_ptr<nn::Module> make_fsdp_model(const FsdpScenario& scenario, uint64_t seed, Device device) {
  manual_seed(seed);
  std::shared_ptr<nn::Module> model;
  if (scenario.model == FsdpModel::kMLP) {
    model = models::MLP(models::MLPOptions(10, num_classes(scenario)).hidden({16, 12})).ptr();
  } else if (scenario.model == FsdpModel::kResNet20) {
    model = models::resnet20(num_classes(scenario)).ptr();
    model->eval();
  } else {
    model = models::ResNet18(models::ResNet18Options().num_classes(num_classes(scenario)).width(4)).ptr();
    model->eval();
  }
  model->to(device, kFloat64);
  return model;
}


std::vector<FSDPModule> shard_scenario_units(nn::Module& model, const FullyShardOptions& options) {
  std::vector<FSDPModule> units;
  for (const auto& block : block_modules(model)) units.push_back(fully_shard(*block, options));
  units.push_back(fully_shard(model, options));
  return units;
}

TrainResult train_reference(const FsdpScenario& scenario, nn::Module& model) {
  auto opt = make_optimizer(scenario, model.parameters());
  TrainResult result;
  for (int step = 0; step < scenario.steps; ++step) {
    auto [inputs, targets] = global_batch(scenario, step);
    opt->zero_grad();
    Tensor loss = F::cross_entropy(call(model, inputs.to(model.parameters()[0].device())),
                                   targets.to(model.parameters()[0].device()));
    loss.backward();
    opt->step();
    result.losses.push_back(loss.item<double>());
  }
  result.params = cpu_copies(model.named_parameters());
  return result;
}

TrainResult train_fully_sharded(const FsdpScenario& scenario, nn::Module& model, std::shared_ptr<ProcessGroup> group,
                                const MixedPrecisionPolicy& mp_policy) {
  const int rank = group->rank();
  const Device device = group->device();
  std::vector<FSDPModule> units = shard_scenario_units(
      model, FullyShardOptions().group(group).reshard_after_forward(scenario.reshard_after_forward).mp_policy(mp_policy)
                        .cpu_offload(scenario.cpu_offload));
  const ShardedUnit& root = units.back().unit();
  const ShardedUnit& first = units.front().unit();

  // The first unit's gathered parameters exist during its forward and, with
  // reshard_after_forward, are gone right after it.
  std::shared_ptr<nn::Module> first_module = first_unit_module(model);
  int forwards_seen = 0;
  first_module->register_forward_pre_hook([&] {
    BRISK_CHECK(first.is_unsharded() && first.unsharded_bytes() > 0,
                "rank {}: unit {} is not gathered during its forward", rank, first.name());
    BRISK_CHECK(first.params()[0].device() == device, "rank {}: unit {} computes on {}, not {}", rank, first.name(),
                first.params()[0].device().str(), device.str());
    ++forwards_seen;
  });
  first_module->register_forward_hook([&](const std::vector<Tensor>&) {
    BRISK_CHECK(first.is_unsharded() != scenario.reshard_after_forward,
                "rank {}: after its forward unit {} is {}gathered (reshard_after_forward={})", rank, first.name(),
                first.is_unsharded() ? "" : "not ", scenario.reshard_after_forward);
    BRISK_CHECK((first.unsharded_bytes() == 0) == scenario.reshard_after_forward,
                "rank {}: after its forward unit {} holds {} bytes of gathered parameters", rank, first.name(),
                first.unsharded_bytes());
  });

  auto check_sharded = [&](const char* when) {
    for (const FSDPModule& u : units) {
      const ShardedUnit& unit = u.unit();
      BRISK_CHECK(!unit.is_unsharded() && unit.unsharded_bytes() == 0,
                  "rank {}: {}, unit {} still holds {} bytes of gathered parameters", rank, when, unit.name(),
                  unit.unsharded_bytes());
      for (size_t i = 0; i < unit.params().size(); ++i) {
        const Shape shard = unit.layout().shard_shape(i, rank);
        BRISK_CHECK(unit.params()[i].sizes() == shard, "rank {}: {}, {} of unit {} is {}, not its shard {}", rank, when,
                    unit.param_names()[i], unit.name(), unit.params()[i].sizes(), shard);
        const Device shard_device = scenario.cpu_offload ? kCPU : device;
        BRISK_CHECK(unit.params()[i].device() == shard_device, "rank {}: {}, {} of unit {} is on {}", rank, when,
                    unit.param_names()[i], unit.name(), unit.params()[i].device().str());
        const Tensor grad = unit.params()[i].grad();
        BRISK_CHECK(!grad.defined() || grad.device() == shard_device, "rank {}: {}, the gradient of {} is on {}",
                    rank, when, unit.param_names()[i], grad.device().str());
        BRISK_CHECK(!grad.defined() || grad.sizes() == shard, "rank {}: {}, the gradient of {} of unit {} is {}",
                    rank, when, unit.param_names()[i], unit.name(), grad.sizes());
      }
    }
  };
  check_sharded("after fully_shard");

  auto opt = make_optimizer(scenario, model.parameters());
  const int64_t per_rank = scenario.global_batch / group->size();
  TrainResult result;
  for (int step = 0; step < scenario.steps; ++step) {
    auto [inputs, targets] = global_batch(scenario, step);
    Tensor x = inputs.narrow(0, rank * per_rank, per_rank).to(device);
    Tensor y = targets.narrow(0, rank * per_rank, per_rank).to(device);
    opt->zero_grad();
    Tensor loss = F::cross_entropy(call(model, x), y);
    BRISK_CHECK(root.is_unsharded(), "rank {}: the root unit resharded after forward", rank);
    loss.backward();
    check_sharded("after backward");
    opt->step();
    result.losses.push_back(loss.item<double>());
  }
  BRISK_CHECK(forwards_seen == scenario.steps, "rank {}: unit {} ran {} forwards in {} steps", rank, first.name(),
              forwards_seen, scenario.steps);
  for (FSDPModule& u : units) u.unshard();
  result.params = cpu_copies(model.named_parameters());
  for (FSDPModule& u : units) u.reshard();
  return result;
}

double max_abs_difference(const nn::StateDict& a, const nn::StateDict& b) {
  BRISK_CHECK(a.size() == b.size(), "max_abs_difference: {} tensors against {}", a.size(), b.size());
  double worst = 0.0;
  for (const auto& item : a) {
    const Tensor& other = b[item.key()];
    BRISK_CHECK(other.sizes() == item.value().sizes(), "max_abs_difference: {} is {} against {}", item.key(),
                item.value().sizes(), other.sizes());
    std::vector<double> x = item.value().to_vector<double>();
    std::vector<double> y = other.to_vector<double>();
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  }
  return worst;
}

}  // namespace brisk::dist::testing
