// Sharded checkpoints of ZeRO-2 runs (distributed/zero2/zero2_checkpoint.h) on thread ranks:
// 4 ranks save after 2 steps of Adam with a StepLR; 1, 2, 3 and 4 ranks load, each its own
// rows, and continue. float64, on the CPU and with rank r on the simulated device sim:r. What proves the re-sharding:
// right after the load the optimizer state, consolidated, is bitwise the state that was saved, and the parameters and
// learning rate too, so the continued run is the one any run on that world size continues
// from that state (checked against a run restored through the consolidated state, the
// existing path); on 4 ranks it is bitwise the uninterrupted run, on the others within 1e-12.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "distributed/zero2/zero2_checkpoint.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "nn/functional.h"
#include "nn/nn.h"
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

// Shapes that split unevenly: fc1 [5, 6] and [5], fc2 [3, 5] and [3] (rank 3 of 4 holds no
// row), a 0-d scale (rank 0's).
struct NetImpl : nn::Module {
  explicit NetImpl(int64_t hidden = 5) {
    fc1 = register_module("fc1", nn::Linear(6, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, 3));
    scale = register_parameter("scale", native::ones({}));
  }
  Tensor forward(const Tensor& x) override { return fc2(F::relu(fc1(x))) * scale; }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  Tensor scale;
};
BRISK_MODULE(Net);

constexpr int64_t kGlobalBatch = 12;  // rows per step: divisible by 1, 2, 3 and 4
constexpr int kSavedAt = 2, kSteps = 4;

// float64, `seed` drawing its values (the same on every rank for the same seed).
Net make_net(uint64_t seed, int64_t hidden = 5) {
  Net net(hidden);
  net->to(kFloat64);
  Generator gen(seed);
  NoGradGuard no_grad;
  for (Tensor p : net->parameters()) p.uniform_(-0.5, 1.0, &gen);
  return net;
}

struct Batch {
  Tensor x, y;
};
Batch batch(int step, int rank, int world_size) {
  Generator gen(100 + static_cast<uint64_t>(step));
  Tensor x = randn({kGlobalBatch, 6}, TensorOptions(kFloat64), &gen);
  Tensor y = randn({kGlobalBatch, 3}, TensorOptions(kFloat64), &gen);
  const int64_t rows = kGlobalBatch / world_size;
  return {x.narrow(0, rank * rows, rows), y.narrow(0, rank * rows, rows)};
}

optim::AdamOptions adam_options() { return optim::AdamOptions(0.05); }

Net on(Net net, Device device) {
  net->to(device);
  return net;
}

// Rank `rank`'s thread group: on the CPU, or on sim:rank.
std::shared_ptr<ProcessGroup> group_of(const std::shared_ptr<ThreadWorld>& world, int rank, bool sim) {
  return std::make_shared<ThreadProcessGroup>(world, rank, sim ? sim_device(rank) : kCPU);
}

// One rank of a ZeRO-2 run: Adam over its shards, StepLR halving the rate every step.
struct Zero2Rank {
  Zero2Rank(std::shared_ptr<ProcessGroup> group, uint64_t seed, int64_t hidden = 5)
      : net(on(make_net(seed, hidden), group->device())), zero2(net, std::move(group)) {
    opt = std::make_unique<Zero2Optimizer>(
        *zero2, [](std::vector<Tensor> shards) { return std::make_unique<optim::Adam>(shards, adam_options()); });
    scheduler = std::make_unique<optim::StepLR>(opt->local_optimizer(), 1, 0.5);
  }
  void step(int s) {
    const ProcessGroup& g = *zero2->process_group();
    Batch b = batch(s, g.rank(), g.size());
    opt->zero_grad();
    F::mse_loss(zero2->forward(b.x.to(g.device())), b.y.to(g.device())).backward();
    opt->step();
    scheduler->step();
  }
  // Collective: the state a plain Adam would have (on rank 0; empty elsewhere).
  optim::OptimizerState consolidated() {
    opt->consolidate_state_dict(0);
    return opt->rank() == 0 ? opt->state_dict() : optim::OptimizerState{};
  }
  double lr() const { return opt->local_optimizer().param_groups()[0].options().get_lr(); }

  Net net;
  Zero2DataParallel<Net> zero2;
  std::unique_ptr<Zero2Optimizer> opt;
  std::unique_ptr<optim::StepLR> scheduler;
};

// A snapshot of a run, taken on rank 0.
struct State {
  std::vector<Tensor> params;
  optim::OptimizerState optimizer;
  double lr = 0;
};

State snapshot(const nn::Module& net, const optim::OptimizerState& optimizer, double lr) {
  State out{{}, optimizer, lr};
  for (const Tensor& p : net.parameters()) out.params.push_back(p.detach().to(kCPU).clone());
  for (auto& [name, t] : out.optimizer.tensors) t = t.to(kCPU).clone();
  return out;
}

bool bitwise(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes() && native::equal(a, b); }

void check_bitwise(const State& got, const State& want) {
  REQUIRE(got.params.size() == want.params.size());
  for (size_t i = 0; i < got.params.size(); ++i) CHECK(bitwise(got.params[i], want.params[i]));
  REQUIRE(got.optimizer.tensors.size() == want.optimizer.tensors.size());
  for (const auto& [name, t] : want.optimizer.tensors) {
    CAPTURE(name);
    REQUIRE(got.optimizer.tensors.count(name) == 1);
    CHECK(bitwise(got.optimizer.tensors.at(name), t));
  }
  CHECK(got.optimizer.param_groups == want.optimizer.param_groups);
  CHECK(got.lr == want.lr);
}

void check_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const std::vector<double> a = got[i].to_vector<double>(), b = want[i].to_vector<double>();
    REQUIRE(a.size() == b.size());
    for (size_t j = 0; j < a.size(); ++j) CHECK(a[j] == Approx(b[j]).margin(1e-12).epsilon(0));
  }
}

// 4 ranks train kSteps steps, saving into `dir` after kSavedAt; rank 0's state at the save and
// at the end.
struct Saved {
  State at_save, at_end;
};
Saved train_and_save(const std::string& dir, bool sim = false) {
  Saved out;
  auto world = std::make_shared<ThreadWorld>(4);
  run_ranks(4, [&](int rank) {
    Zero2Rank r(group_of(world, rank, sim), 1);
    for (int s = 0; s < kSteps; ++s) {
      if (s == kSavedAt) {
        save_zero2_checkpoint(dir, *r.net, *r.opt, {0, s, s}, 77, r.scheduler.get(), {{"note", "zero2"}});
        optim::OptimizerState state = r.consolidated();
        if (rank == 0) out.at_save = snapshot(*r.net, state, r.lr());
      }
      r.step(s);
    }
    optim::OptimizerState state = r.consolidated();
    if (rank == 0) out.at_end = snapshot(*r.net, state, r.lr());
  });
  return out;
}

TEST_CASE("ZeRO-2: 4 ranks save their shards; 1, 2, 3 and 4 ranks load their rows and continue",
          "[zero2][checkpoint]") {
  const bool sim = GENERATE(false, true);
  const std::string dir = brisk::testing::scratch_dir(sim ? "zero2_ckpt_sim" : "zero2_ckpt") + "/ckpt";
  const Saved saved = train_and_save(dir, sim);

  for (int world_size : {1, 2, 3, 4}) {
    DYNAMIC_SECTION("loaded on " << world_size << (sim ? " sim" : " cpu") << " ranks") {
      State loaded, continued, reference;
      auto world = std::make_shared<ThreadWorld>(world_size);
      run_ranks(world_size, [&](int rank) {
        Zero2Rank r(group_of(world, rank, sim), 2);  // other initial values
        checkpoint::Checkpoint run = load_zero2_checkpoint(dir, *r.net, *r.opt, r.scheduler.get());
        THREAD_CHECK(run.progress.step == kSavedAt);
        THREAD_CHECK(run.data_seed == 77);
        THREAD_CHECK(run.metadata.at("note") == "zero2");
        optim::OptimizerState state = r.consolidated();
        if (rank == 0) loaded = snapshot(*r.net, state, r.lr());
        for (int s = kSavedAt; s < kSteps; ++s) r.step(s);
        state = r.consolidated();
        if (rank == 0) continued = snapshot(*r.net, state, r.lr());
      });
      check_bitwise(loaded, saved.at_save);

      // The same world size restored through the consolidated state (Zero2Optimizer::load_state_dict).
      auto again = std::make_shared<ThreadWorld>(world_size);
      run_ranks(world_size, [&](int rank) {
        Zero2Rank r(group_of(again, rank, sim), 3);
        const checkpoint::Checkpoint full = checkpoint::load_sharded_checkpoint(dir);
        r.net->load_state_dict(full.model);
        r.opt->load_state_dict(full.optimizer);
        r.scheduler->load_state_dict(full.scheduler);
        for (int s = kSavedAt; s < kSteps; ++s) r.step(s);
        optim::OptimizerState state = r.consolidated();
        if (rank == 0) reference = snapshot(*r.net, state, r.lr());
      });
      check_bitwise(continued, reference);
      if (world_size == 4) check_bitwise(continued, saved.at_end);
      check_close(continued.params, saved.at_end.params);
    }
  }
}

TEST_CASE("ZeRO-2: a sharded checkpoint loads into one process, a plain model and optimizer", "[zero2][checkpoint]") {
  const std::string dir = brisk::testing::scratch_dir("zero2_ckpt_plain") + "/ckpt";
  const Saved saved = train_and_save(dir);

  Net net = make_net(5);
  optim::Adam adam(net->parameters(), adam_options());
  optim::StepLR scheduler(adam, 1, 0.5);
  const checkpoint::Checkpoint ckpt = checkpoint::load_sharded_checkpoint(dir);
  CHECK(ckpt.progress.step == kSavedAt);
  CHECK(ckpt.optimizer_name == "Adam");
  checkpoint::restore(ckpt, *net, adam, &scheduler);
  check_bitwise(snapshot(*net, adam.state_dict(), adam.param_groups()[0].options().get_lr()), saved.at_save);
  for (int s = kSavedAt; s < kSteps; ++s) {
    Batch b = batch(s, 0, 1);
    adam.zero_grad();
    F::mse_loss(net->forward(b.x), b.y).backward();
    adam.step();
    scheduler.step();
  }
  check_close(net->parameters(), saved.at_end.params);
}

TEST_CASE("ZeRO-2: loading into another model or optimizer fails on every rank, naming what differs",
          "[zero2][checkpoint]") {
  const std::string dir = brisk::testing::scratch_dir("zero2_ckpt_errors") + "/ckpt";
  train_and_save(dir);
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    Zero2Rank r(std::make_shared<ThreadProcessGroup>(world, rank), 2, /*hidden=*/4);
    THREAD_CHECK_THROWS_WITH(
        load_zero2_checkpoint(dir, *r.net, *r.opt, r.scheduler.get()),
        Catch::Contains("\"fc1.weight\" is float64 [5, 6]") && Catch::Contains("[4, 6]") && Catch::Contains(dir));
  });
  auto world2 = std::make_shared<ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    Net net = make_net(2);
    Zero2DataParallel<Net> zero2(net, std::make_shared<ThreadProcessGroup>(world2, rank));
    Zero2Optimizer sgd(*zero2, [](std::vector<Tensor> shards) {
      return std::make_unique<optim::SGD>(shards, optim::SGDOptions(0.1));
    });
    THREAD_CHECK_THROWS_WITH(load_zero2_checkpoint(dir, *net, sgd),
                             Catch::Contains("holds the state of Adam, but the run's optimizer is SGD") &&
                                 Catch::Contains("on rank " + std::to_string(rank)));
  });
}

}  // namespace
}  // namespace brisk::dist
