// ZeRO-2 under autocast (bfloat16) on 2 and 3 thread ranks, on the CPU and with rank r on
// sim:r, equals DDP under autocast on the same data: the same float32 replicas run the same bf16 forward on the same
// rows, so each rank's float32 gradients are the same bits; DDP all-reduces and ZeRO-2
// reduce-scatters them, both averaging in rank order (ThreadProcessGroup), and the optimizers
// step the same elements. So the parameters after every step are bitwise DDP's (the equality
// that holds, measured; tolerance 0). That the runs are in bf16 at all: they differ from
// float32 runs by more than 1e-4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
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
  for (const Tensor& p : params) out.push_back(p.to(kCPU).contiguous().to_vector<float>());
  return out;
}

struct Run {
  int world = 2;
  bool adam = false;
  bool sim = false;  // rank r's group, replica and rows on sim:r
  bool amp = true;   // the forward under bf16 autocast
};

// One wrapper's training step on its rows: the forward under autocast when run.amp, the loss in
// float32, backward and the optimizer's step.
template <typename Wrapper, typename Optimizer>
void train_step(const Run& run, Device device, Wrapper& wrapper, Optimizer& opt,
                const std::pair<Tensor, Tensor>& rows) {
  opt.zero_grad();
  Tensor logits;
  {
    autocast region(device, kBFloat16, run.amp);  // thread-local: each rank enters its own
    logits = wrapper->forward(rows.first.to(device));
    THREAD_CHECK(logits.dtype() == (run.amp ? kBFloat16 : kFloat32));
  }
  F::cross_entropy(logits.to(kFloat32), rows.second.to(device)).backward();
  opt.step();
}

// `run.world` thread ranks training under DDP (with a plain optimizer) or ZeRO-2 (with a
// Zero2Optimizer); rank 0's parameters after every step, once every rank's are checked equal.
std::vector<Parameters> train(const Run& run, bool zero2) {
  std::vector<models::MLP> models;  // made here: the default generator is the process's
  for (int rank = 0; rank < run.world; ++rank) {
    models.push_back(make_mlp());
    models.back()->to(run.sim ? sim_device(rank) : kCPU);
  }
  auto shared = std::make_shared<ThreadWorld>(run.world, std::chrono::seconds(60));
  std::vector<std::vector<Parameters>> steps(run.world);
  run_ranks(run.world, [&](int rank) {
    const Device device = run.sim ? sim_device(rank) : kCPU;
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank, device);
    models::MLP& model = models[rank];
    if (zero2) {
      auto wrapper = Zero2DataParallel(model.ptr(), group);
      Zero2Optimizer opt(*wrapper, [&](std::vector<Tensor> shards) { return make_optimizer(run.adam, shards); });
      for (int step = 0; step < kSteps; ++step) {
        train_step(run, device, wrapper, opt, rank_batch(step, rank, run.world));
        steps[rank].push_back(values_of(model->parameters()));
      }
    } else {
      auto wrapper = DistributedDataParallel(model.ptr(), group);
      std::unique_ptr<optim::Optimizer> opt = make_optimizer(run.adam, wrapper->parameters());
      for (int step = 0; step < kSteps; ++step) {
        train_step(run, device, wrapper, *opt, rank_batch(step, rank, run.world));
        steps[rank].push_back(values_of(model->parameters()));
      }
    }
  });
  for (int rank = 1; rank < run.world; ++rank) CHECK(steps[rank] == steps[0]);  // every replica the same
  return steps[0];
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
  Run run;
  run.world = GENERATE(2, 3);
  run.adam = GENERATE(false, true);
  run.sim = GENERATE(false, true);
  INFO(run.world << (run.sim ? " sim" : " cpu") << " ranks, " << (run.adam ? "Adam" : "SGD with momentum"));
  const std::vector<Parameters> ddp = train(run, /*zero2=*/false);
  const std::vector<Parameters> zero2 = train(run, /*zero2=*/true);
  REQUIRE(zero2.size() == ddp.size());
  CHECK(max_abs_difference(zero2, ddp) == 0.0);
  // The comparison is of bf16 runs: float32 ones end elsewhere.
  run.amp = false;
  CHECK(max_abs_difference(train(run, /*zero2=*/true), zero2) > 1e-4);
}

}  // namespace
}  // namespace brisk::dist::testing
