// ZeRO-2 under autocast (bfloat16 on the CPU) on 2 and 3 thread ranks equals DDP under
// autocast on the same data: the same float32 replicas run the same bf16 forward on the same
// rows, so each rank's float32 gradients are the same bits; DDP all-reduces and ZeRO-2
// reduce-scatters them, both averaging in rank order (ThreadProcessGroup), and the optimizers
// step the same elements. So the parameters after every step are bitwise DDP's (the equality
// that holds, measured; tolerance 0). That the runs are in bf16 at all: they differ from
// float32 runs by more than 1e-4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "autograd/autocast.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

namespace F = nn::functional;

constexpr int kSteps = 3;
constexpr int64_t kRowsPerRank = 4;

models::MLP make_mlp() {
  manual_seed(7);
  return models::MLP(models::MLPOptions(10, 5).hidden({16, 12}));
}

// Step `step`'s rows of `rank`: the global batch of world * kRowsPerRank rows, cut in order.
std::pair<Tensor, Tensor> rank_batch(int step, int rank, int world) {
  Generator gen(900 + step);
  Tensor x = native::empty({world * kRowsPerRank, 10}, kFloat32);
  native::normal_(x, 0.0, 1.0, &gen);
  Tensor y = native::randint(0, 5, {world * kRowsPerRank}, kInt64, &gen);
  return {x.narrow(0, rank * kRowsPerRank, kRowsPerRank), y.narrow(0, rank * kRowsPerRank, kRowsPerRank)};
}

std::unique_ptr<optim::Optimizer> make_optimizer(bool adam, std::vector<Tensor> params) {
  if (adam) return std::make_unique<optim::Adam>(params, optim::AdamOptions(1e-2));
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
}

using Parameters = std::vector<std::vector<float>>;  // after each step, every parameter's values

Parameters values_of(const std::vector<Tensor>& params) {
  Parameters out;
  for (const Tensor& p : params) out.push_back(p.contiguous().to_vector<float>());
  return out;
}

// fn(rank, model, group) on `world` thread ranks, each with its MLP (made here: the default
// generator is the process's); returns rank 0's parameters after every step.
std::vector<Parameters> on_ranks(
    int world, const std::function<std::vector<Parameters>(int, models::MLP&, std::shared_ptr<ProcessGroup>)>& fn) {
  std::vector<models::MLP> models;
  for (int rank = 0; rank < world; ++rank) models.push_back(make_mlp());
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(60));
  std::vector<std::vector<Parameters>> runs(world);
  run_ranks(world,
            [&](int rank) { runs[rank] = fn(rank, models[rank], std::make_shared<ThreadProcessGroup>(shared, rank)); });
  for (int rank = 1; rank < world; ++rank) CHECK(runs[rank] == runs[0]);  // every replica the same
  return runs[0];
}

std::vector<Parameters> train_ddp(int world, bool adam, bool amp) {
  return on_ranks(world, [&](int rank, models::MLP& model, std::shared_ptr<ProcessGroup> group) {
    auto ddp = DistributedDataParallel(model.ptr(), group);
    std::unique_ptr<optim::Optimizer> opt = make_optimizer(adam, ddp->parameters());
    std::vector<Parameters> steps;
    for (int step = 0; step < kSteps; ++step) {
      auto [x, y] = rank_batch(step, rank, world);
      opt->zero_grad();
      Tensor logits;
      {
        autocast region(kCPU, kBFloat16, amp);
        logits = ddp->forward(x);
        THREAD_CHECK(logits.dtype() == (amp ? kBFloat16 : kFloat32));
      }
      F::cross_entropy(logits.to(kFloat32), y).backward();
      opt->step();
      steps.push_back(values_of(model->parameters()));
    }
    return steps;
  });
}

std::vector<Parameters> train_zero2(int world, bool adam, bool amp) {
  return on_ranks(world, [&](int rank, models::MLP& model, std::shared_ptr<ProcessGroup> group) {
    auto zero2 = Zero2DataParallel(model.ptr(), group);
    Zero2Optimizer opt(*zero2, [adam](std::vector<Tensor> shards) { return make_optimizer(adam, shards); });
    std::vector<Parameters> steps;
    for (int step = 0; step < kSteps; ++step) {
      auto [x, y] = rank_batch(step, rank, world);
      opt.zero_grad();
      Tensor logits;
      {
        autocast region(kCPU, kBFloat16, amp);
        logits = zero2->forward(x);
        THREAD_CHECK(logits.dtype() == (amp ? kBFloat16 : kFloat32));
      }
      F::cross_entropy(logits.to(kFloat32), y).backward();
      for (const Tensor& shard : opt.params())
        THREAD_CHECK(!shard.grad().defined() || shard.grad().dtype() == kFloat32);
      opt.step();
      steps.push_back(values_of(model->parameters()));
    }
    return steps;
  });
}

double max_abs_difference(const std::vector<Parameters>& a, const std::vector<Parameters>& b) {
  double worst = 0;
  for (size_t s = 0; s < a.size(); ++s) {
    for (size_t p = 0; p < a[s].size(); ++p) {
      for (size_t i = 0; i < a[s][p].size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(a[s][p][i]) - b[s][p][i]));
      }
    }
  }
  return worst;
}

TEST_CASE("ZeRO-2 under bf16 autocast equals DDP under bf16 autocast, bit for bit", "[zero2][amp]") {
  const int world = GENERATE(2, 3);
  const bool adam = GENERATE(false, true);
  INFO(world << " ranks, " << (adam ? "Adam" : "SGD with momentum"));
  const std::vector<Parameters> ddp = train_ddp(world, adam, /*amp=*/true);
  const std::vector<Parameters> zero2 = train_zero2(world, adam, /*amp=*/true);
  REQUIRE(zero2.size() == ddp.size());
  CHECK(max_abs_difference(zero2, ddp) == 0.0);
  // The comparison is of bf16 runs: float32 ones end elsewhere.
  CHECK(max_abs_difference(train_zero2(world, adam, /*amp=*/false), zero2) > 1e-4);
}

}  // namespace
}  // namespace brisk::dist::testing
