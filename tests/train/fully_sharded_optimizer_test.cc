// train::fully_sharded on thread ranks: GradScaler's verdict is agreed over the group (an
// overflow in one rank's gradient shard skips the step on every rank), and a StepLR over the
// local optimizer equals one process's (float64, within 1e-12).
#include <catch2/catch.hpp>

#include <limits>
#include <memory>
#include <vector>

#include "autograd/grad_mode.h"
#include "distributed/fsdp/full_state_dict.h"
#include "distributed/fsdp/fully_shard.h"
#include "nn/functional.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "train/sharded_optimizer.h"

namespace brisk::train {
namespace {

namespace F = nn::functional;
using dist::testing::run_ranks;
using dist::testing::ThreadProcessGroup;
using dist::testing::ThreadWorld;

constexpr int64_t kBatch = 12;  // divisible by 2 and 3

std::shared_ptr<nn::Module> make_model() {
  manual_seed(5);
  auto model = nn::Sequential(nn::Linear(10, 7), nn::Linear(7, 5)).ptr();
  model->to(kFloat64);
  return model;
}

std::pair<Tensor, Tensor> batch(int step) {
  Generator gen(300 + step);
  Tensor x = native::empty({kBatch, 10}, kFloat64);
  native::normal_(x, 0.0, 1.0, &gen);
  return {x, native::randint(0, 5, {kBatch}, kInt64, &gen)};
}

Tensor call(nn::Module& model, const Tensor& x) {
  return nn::forward_naming_module(model, [&] { return model.forward(x); });
}

// The model's units: each Linear, then the root; an SGD over the shards behind fully_sharded.
std::unique_ptr<ShardedOptimizer> shard(nn::Module& model, const std::shared_ptr<dist::ProcessGroup>& group) {
  const auto options = dist::FullyShardOptions().group(group);
  for (const auto& child : model.children()) dist::fully_shard(*child, options);
  dist::fully_shard(model, options);
  return fully_sharded(model, std::make_unique<optim::SGD>(model.parameters(), optim::SGDOptions(0.1).momentum(0.9)));
}

TEST_CASE("fully_sharded: an overflow in one rank's gradient shard skips the step on every rank", "[fsdp][amp]") {
  constexpr int kWorld = 2;
  std::vector<std::shared_ptr<nn::Module>> models{make_model(), make_model()};
  auto world = std::make_shared<ThreadWorld>(kWorld, std::chrono::seconds(20));
  std::vector<double> scales(kWorld);
  std::vector<bool> unchanged(kWorld);
  run_ranks(kWorld, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(world, rank);
    nn::Module& model = *models[rank];
    std::unique_ptr<ShardedOptimizer> sharded = shard(model, group);
    optim::GradScaler scaler(optim::GradScalerOptions().init_scale(1024.0));
    std::vector<Tensor> before;
    for (const Tensor& p : model.parameters()) before.push_back(native::clone(p));
    sharded->zero_grad();
    auto [x, y] = batch(0);
    const int64_t per_rank = kBatch / kWorld;
    scaler.scale(F::cross_entropy(call(model, x.narrow(0, rank * per_rank, per_rank)),
                                  y.narrow(0, rank * per_rank, per_rank)))
        .backward();
    if (rank == 1) {
      // Only rank 1's shard of the first weight overflows; rank 0's gradients are finite.
      autograd::NoGradGuard no_grad;
      model.parameters()[0].grad().fill_(std::numeric_limits<double>::infinity());
    }
    sharded->step(&scaler);
    bool same = true;
    for (size_t i = 0; i < before.size(); ++i) same = same && native::equal(before[i], model.parameters()[i]);
    unchanged[rank] = same;
    scales[rank] = scaler.get_scale();
  });
  for (int rank = 0; rank < kWorld; ++rank) {
    INFO("rank " << rank);
    CHECK(unchanged[rank]);
    CHECK(scales[rank] == 512.0);  // backed off on every rank
  }
}

TEST_CASE("fully_sharded: a StepLR over the local optimizer equals one process's", "[fsdp][lr]") {
  constexpr int kSteps = 4;
  // One process: the plain model on every global batch.
  std::shared_ptr<nn::Module> reference = make_model();
  optim::SGD opt(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  optim::StepLR reference_schedule(opt, 2, 0.5);
  for (int step = 0; step < kSteps; ++step) {
    auto [x, y] = batch(step);
    opt.zero_grad();
    F::cross_entropy(call(*reference, x), y).backward();
    opt.step();
    reference_schedule.step();
  }
  for (int world : {2, 3}) {
    std::vector<std::shared_ptr<nn::Module>> models;
    for (int rank = 0; rank < world; ++rank) models.push_back(make_model());
    auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
    std::vector<nn::StateDict> full(world);
    std::vector<double> lrs(world);
    run_ranks(world, [&](int rank) {
      auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
      nn::Module& model = *models[rank];
      std::unique_ptr<ShardedOptimizer> sharded = shard(model, group);
      optim::StepLR schedule(sharded->local_optimizer(), 2, 0.5);
      const int64_t per_rank = kBatch / world;
      for (int step = 0; step < kSteps; ++step) {
        auto [x, y] = batch(step);
        sharded->zero_grad();
        F::cross_entropy(call(model, x.narrow(0, rank * per_rank, per_rank)), y.narrow(0, rank * per_rank, per_rank))
            .backward();
        sharded->step(nullptr);
        schedule.step();
      }
      lrs[rank] = schedule.get_last_lr()[0];
      full[rank] = sharded->full_model_state_dict(model, 0);
    });
    INFO(world << " ranks");
    CHECK(lrs[0] == reference_schedule.get_last_lr()[0]);
    for (const auto& item : reference->state_dict()) {
      INFO(item.key());
      CHECK((full[0][item.key()] - item.value()).abs().max().item<double>() <= 1e-12);
    }
  }
}

}  // namespace
}  // namespace brisk::train
