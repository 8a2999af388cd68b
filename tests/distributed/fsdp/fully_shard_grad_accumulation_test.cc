// Gradient accumulation under fully_shard on thread ranks: two micro-batches per step, either
// the first without synchronization (set_requires_gradient_sync(false): no reduce_scatter,
// full gradients kept) or both reduce-scattered (shard gradients summed), and clipping from
// the shards (dist::clip_grad_norm_, 2-norm and inf-norm). Each equals one process on the
// global batch within 1e-12 (float64).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "distributed/fsdp/clip_grad_norm.h"
#include "nn/functional.h"
#include "optim/clip_grad.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

namespace F = nn::functional;

constexpr int kSteps = 2;
constexpr int64_t kBatch = 12;

std::pair<Tensor, Tensor> batch(int step) {
  Generator gen(700 + step);
  Tensor x = native::empty({kBatch, 10}, kFloat64);
  native::normal_(x, 0.0, 1.0, &gen);
  return {x, native::randint(0, 5, {kBatch}, kInt64, &gen)};
}

Tensor call(nn::Module& model, const Tensor& x) {
  return nn::forward_naming_module(model, [&] { return model.forward(x); });
}

struct Run {
  nn::StateDict params;
  std::vector<double> norms;
};

// max_norm 0: no clipping.
Run reference(double max_norm, double norm_type) {
  FsdpScenario scenario;
  std::shared_ptr<nn::Module> model = make_fsdp_model(scenario, 1);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  Run run;
  for (int step = 0; step < kSteps; ++step) {
    auto [x, y] = batch(step);
    opt.zero_grad();
    F::cross_entropy(call(*model, x), y).backward();
    if (max_norm > 0) run.norms.push_back(optim::clip_grad_norm_(model->parameters(), max_norm, norm_type).item<double>());
    opt.step();
  }
  for (const auto& item : model->named_parameters()) run.params.insert(item.key(), native::clone(item.value()));
  return run;
}

enum class Accumulate { kNoSyncFirst, kSyncBoth };

std::vector<Run> sharded(int world, Accumulate mode, double max_norm, double norm_type) {
  FsdpScenario scenario;
  std::vector<std::shared_ptr<nn::Module>> models;
  for (int rank = 0; rank < world; ++rank) models.push_back(make_fsdp_model(scenario, 1));
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  std::vector<Run> runs(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    nn::Module& model = *models[rank];
    std::vector<FSDPModule> units = shard_scenario_units(model, FullyShardOptions().group(group));
    FSDPModule& root = units.back();
    optim::SGD opt(model.parameters(), optim::SGDOptions(0.1).momentum(0.9));
    const int64_t per_rank = kBatch / world, half = per_rank / 2;
    for (int step = 0; step < kSteps; ++step) {
      auto [x, y] = batch(step);
      opt.zero_grad();
      for (int micro = 0; micro < 2; ++micro) {
        const bool sync = mode == Accumulate::kSyncBoth || micro == 1;
        root.set_requires_gradient_sync(sync);
        const int64_t begin = rank * per_rank + micro * half;
        const size_t collectives = group->history().size();
        F::cross_entropy(call(model, x.narrow(0, begin, half)), y.narrow(0, begin, half)).mul(0.5).backward();
        const auto& h = group->history();
        const bool reduced = std::count(h.begin() + collectives, h.end(), std::string("reduce_scatter(AVG)")) > 0;
        THREAD_CHECK(reduced == sync);
        for (const Tensor& p : model.parameters()) THREAD_CHECK(p.grad().defined() == (sync || micro == 1));
      }
      if (max_norm > 0) runs[rank].norms.push_back(dist::clip_grad_norm_(model, max_norm, norm_type).item<double>());
      opt.step();
    }
    for (FSDPModule& u : units) u.unshard();
    for (const auto& item : model.named_parameters()) runs[rank].params.insert(item.key(), native::clone(item.value()));
    for (FSDPModule& u : units) u.reshard();
  });
  return runs;
}

TEST_CASE("fully_shard: gradient accumulation with and without synchronizing every micro-batch", "[fsdp]") {
  const Run expected = reference(0, 2);
  const int world = GENERATE(2, 3);
  const Accumulate mode = GENERATE(Accumulate::kNoSyncFirst, Accumulate::kSyncBoth);
  INFO("world " << world << (mode == Accumulate::kNoSyncFirst ? " no_sync first" : " sync both"));
  for (const Run& run : sharded(world, mode, 0, 2)) CHECK(max_abs_difference(run.params, expected.params) < 1e-12);
}

TEST_CASE("fully_shard: clip_grad_norm_ from the shards equals clipping the full gradients", "[fsdp]") {
  const double norm_type = GENERATE(2.0, INFINITY);
  const int world = GENERATE(2, 3);
  INFO("norm " << norm_type << " world " << world);
  const Run expected = reference(0.05, norm_type);
  REQUIRE(expected.norms[0] > 0.05);  // the clipping happens
  for (const Run& run : sharded(world, Accumulate::kSyncBoth, 0.05, norm_type)) {
    for (int step = 0; step < kSteps; ++step) CHECK(std::abs(run.norms[step] - expected.norms[step]) < 1e-12);
    CHECK(max_abs_difference(run.params, expected.params) < 1e-12);
  }
}

}  // namespace
}  // namespace brisk::dist::testing
