// Sharded checkpoints of fully_shard runs (distributed/fsdp/fsdp_checkpoint.h) on thread ranks:
// 4 ranks (an MLP 10-16-12-5, one unit per layer and the root) save after 2 steps of Adam with
// a StepLR; 1, 2, 3 and 4 ranks load and continue. float64, on the CPU and with rank r on the
// simulated device sim:r. Right after the load
// every rank's parameter shards and optimizer state are bitwise the rows (torch.chunk's split
// of the new world size, computed here on its own) of the state saved, so the continued run is
// the one any run on that world size continues from that state: on 4 ranks bitwise the
// uninterrupted run, and on every world size within 1e-12 of one process continuing from the
// checkpoint.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "distributed/fsdp/fsdp_checkpoint.h"
#include "distributed/fsdp/fully_shard.h"
#include "distributed/shard/flat_shard_layout.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/adam.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/scratch_files.h"

namespace brisk::dist {
namespace {

namespace F = nn::functional;
using testing::run_ranks;
using testing::ThreadProcessGroup;
using testing::ThreadWorld;

constexpr int64_t kGlobalBatch = 12;  // divisible by 1, 2, 3 and 4
constexpr int kSavedAt = 2, kSteps = 4;

// float64, its values drawn from `seed` (the same on every rank for the same seed).
models::MLP make_mlp(uint64_t seed, int64_t hidden = 16) {
  models::MLP mlp(models::MLPOptions(10, 5).hidden({hidden, 12}));
  mlp->to(kFloat64);
  Generator gen(seed);
  NoGradGuard no_grad;
  for (Tensor p : mlp->parameters()) p.uniform_(-0.5, 0.5, &gen);
  return mlp;
}

// Step `step`'s rows of this rank (all of them for a world of one).
std::pair<Tensor, Tensor> batch(int step, int rank, int world_size) {
  Generator gen(100 + static_cast<uint64_t>(step));
  Tensor x = randn({kGlobalBatch, 10}, TensorOptions(kFloat64), &gen);
  Tensor y = randn({kGlobalBatch, 5}, TensorOptions(kFloat64), &gen);
  const int64_t rows = kGlobalBatch / world_size;
  return {x.narrow(0, rank * rows, rows), y.narrow(0, rank * rows, rows)};
}

optim::AdamOptions adam_options() { return optim::AdamOptions(0.05); }

// A call of the model as a module, so that the units' forward hooks run.
Tensor call(nn::Module& model, const Tensor& x) {
  return nn::forward_naming_module(model, [&] { return model.forward(x); });
}

// Rank `rank`'s thread group: on the CPU, or on sim:rank.
std::shared_ptr<ProcessGroup> group_of(const std::shared_ptr<ThreadWorld>& world, int rank, bool sim) {
  return std::make_shared<ThreadProcessGroup>(world, rank, sim ? sim_device(rank) : kCPU);
}

// One rank of a fully sharded run: a unit per layer and the root, Adam over the shards, StepLR
// halving the rate every step.
struct FsdpRank {
  FsdpRank(std::shared_ptr<ProcessGroup> group, uint64_t seed, int64_t hidden = 16)
      : mlp(make_mlp(seed, hidden)), rank(group->rank()), world_size(group->size()), device(group->device()) {
    mlp->to(device);
    const FullyShardOptions options = FullyShardOptions().group(group);
    for (const auto& layer : mlp->layers->children()) fully_shard(*layer, options);
    fully_shard(*mlp, options);
    opt = std::make_unique<optim::Adam>(mlp->parameters(), adam_options());
    scheduler = std::make_unique<optim::StepLR>(*opt, 1, 0.5);
  }
  void step(int s) {
    auto [x, y] = batch(s, rank, world_size);
    opt->zero_grad();
    F::mse_loss(call(*mlp, x.to(device)), y.to(device)).backward();
    opt->step();
    scheduler->step();
  }
  // This rank's shards of the parameters and of the optimizer state, copied.
  std::map<std::string, Tensor> shards() const {
    std::map<std::string, Tensor> out;
    for (const auto& [name, p] : mlp->named_parameters()) out[name] = p.detach().to(kCPU).clone();
    for (const auto& [key, t] : opt->state_dict().tensors) out["optimizer/" + key] = t.to(kCPU).clone();
    return out;
  }
  double lr() const { return opt->param_groups()[0].options().get_lr(); }

  models::MLP mlp;
  int rank, world_size;
  Device device;
  std::unique_ptr<optim::Adam> opt;
  std::unique_ptr<optim::StepLR> scheduler;
};

bool bitwise(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes() && native::equal(a, b); }

// Rank `rank`'s rows of `full` among `world_size` ranks (a 0-d tensor: whole, Adam's step).
Tensor rows_of(const Tensor& full, int rank, int world_size) {
  if (full.dim() == 0) return full;
  const RowRange rows = dim0_shard(full.size(0), world_size, rank);
  return full.narrow(0, rows.begin, rows.rows);
}

// `shards` (a rank's, keyed as FsdpRank::shards) against the rows of the whole checkpoint.
void check_rows_of(const std::map<std::string, Tensor>& shards, const checkpoint::Checkpoint& full, int rank,
                   int world_size) {
  for (const auto& [name, t] : shards) {
    CAPTURE(rank, world_size, name);
    const bool optimizer = name.rfind("optimizer/", 0) == 0;
    const Tensor& whole = optimizer ? full.optimizer.tensors.at(name.substr(10)) : full.model[name];
    CHECK(bitwise(t, rows_of(whole, rank, world_size)));
  }
}

// 4 ranks train kSteps steps, saving into `dir` after kSavedAt; each rank's shards at the end.
std::vector<std::map<std::string, Tensor>> train_and_save(const std::string& dir, bool sim = false) {
  std::vector<std::map<std::string, Tensor>> at_end(4);
  auto world = std::make_shared<ThreadWorld>(4);
  run_ranks(4, [&](int rank) {
    FsdpRank r(group_of(world, rank, sim), 1);
    for (int s = 0; s < kSteps; ++s) {
      if (s == kSavedAt) save_fsdp_checkpoint(dir, *r.mlp, *r.opt, {0, s, s}, 77, r.scheduler.get());
      r.step(s);
    }
    at_end[static_cast<size_t>(rank)] = r.shards();
  });
  return at_end;
}

TEST_CASE("fully_shard: 4 ranks save their shards; 1, 2, 3 and 4 ranks load their rows and continue",
          "[fsdp][checkpoint]") {
  const bool sim = GENERATE(false, true);
  const std::string dir = brisk::testing::scratch_dir(sim ? "fsdp_ckpt_sim" : "fsdp_ckpt") + "/ckpt";
  const std::vector<std::map<std::string, Tensor>> uninterrupted = train_and_save(dir, sim);
  const checkpoint::Checkpoint saved = checkpoint::load_sharded_checkpoint(dir);
  CHECK(saved.progress.step == kSavedAt);
  CHECK(saved.model["layers.0.weight"].sizes() == Shape{16, 10});  // whole, not a shard

  // One process continues from the checkpoint: the reference.
  models::MLP plain = make_mlp(9);
  optim::Adam adam(plain->parameters(), adam_options());
  optim::StepLR scheduler(adam, 1, 0.5);
  checkpoint::restore(saved, *plain, adam, &scheduler);
  for (int s = kSavedAt; s < kSteps; ++s) {
    auto [x, y] = batch(s, 0, 1);
    adam.zero_grad();
    F::mse_loss(plain->forward(x), y).backward();
    adam.step();
    scheduler.step();
  }

  for (int world_size : {1, 2, 3, 4}) {
    DYNAMIC_SECTION("loaded on " << world_size << (sim ? " sim" : " cpu") << " ranks") {
      std::vector<std::map<std::string, Tensor>> loaded(world_size), continued(world_size);
      std::vector<double> lr(world_size);
      auto world = std::make_shared<ThreadWorld>(world_size);
      run_ranks(world_size, [&](int rank) {
        FsdpRank r(group_of(world, rank, sim), 2);  // other initial values
        checkpoint::Checkpoint run = load_fsdp_checkpoint(dir, *r.mlp, *r.opt, r.scheduler.get());
        THREAD_CHECK(run.progress.step == kSavedAt);
        THREAD_CHECK(run.data_seed == 77);
        loaded[static_cast<size_t>(rank)] = r.shards();
        lr[static_cast<size_t>(rank)] = r.lr();
        for (int s = kSavedAt; s < kSteps; ++s) r.step(s);
        continued[static_cast<size_t>(rank)] = r.shards();
      });
      for (int rank = 0; rank < world_size; ++rank) {
        check_rows_of(loaded[static_cast<size_t>(rank)], saved, rank, world_size);
        CHECK(lr[static_cast<size_t>(rank)] == scheduler.get_last_lr()[0] * 4);  // before 2 more halvings
        for (const auto& [name, p] : plain->named_parameters()) {
          CAPTURE(rank, name);
          const Tensor got = continued[static_cast<size_t>(rank)].at(name);
          const std::vector<double> a = got.to_vector<double>(), b = rows_of(p, rank, world_size).to_vector<double>();
          REQUIRE(a.size() == b.size());
          for (size_t j = 0; j < a.size(); ++j) CHECK(a[j] == Approx(b[j]).margin(1e-12).epsilon(0));
        }
        if (world_size == 4) {
          for (const auto& [name, t] : uninterrupted[static_cast<size_t>(rank)]) {
            CAPTURE(rank, name);
            CHECK(bitwise(continued[static_cast<size_t>(rank)].at(name), t));
          }
        }
      }
    }
  }
}

TEST_CASE("fully_shard: loading into another model or optimizer fails on every rank, naming what differs",
          "[fsdp][checkpoint]") {
  const std::string dir = brisk::testing::scratch_dir("fsdp_ckpt_errors") + "/ckpt";
  train_and_save(dir);
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    FsdpRank r(std::make_shared<ThreadProcessGroup>(world, rank), 2, /*hidden=*/8);
    THREAD_CHECK_THROWS_WITH(load_fsdp_checkpoint(dir, *r.mlp, *r.opt, r.scheduler.get()),
                             Catch::Contains("\"layers.0.weight\" is float64 [16, 10]") && Catch::Contains("[8, 10]") &&
                                 Catch::Contains(dir));
  });
  auto world2 = std::make_shared<ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    FsdpRank r(std::make_shared<ThreadProcessGroup>(world2, rank), 2);
    optim::SGD sgd(r.mlp->parameters(), optim::SGDOptions(0.1));
    THREAD_CHECK_THROWS_WITH(load_fsdp_checkpoint(dir, *r.mlp, sgd),
                             Catch::Contains("holds the state of Adam, but the run's optimizer is SGD") &&
                                 Catch::Contains("on rank " + std::to_string(rank)));
  });
}

}  // namespace
}  // namespace brisk::dist
