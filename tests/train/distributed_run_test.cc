// train/distributed_run: the metrics summed over ranks on the group's device, and a
// DDP training epoch whose only copies to the host are Gloo's staging of its collectives
// (ranks are threads here, each with a Gloo group on its own simulated device).
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "autograd/ops.h"
#include "data/distributed_sampler.h"
#include "data/tensor_dataset.h"
#include "distributed/gloo/process_group_gloo.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "optim/sgd.h"
#include "tensor/sim/sim_backend.h"
#include "tests/distributed/gloo/gloo_thread_ranks.h"
#include "train/distributed_run.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Contains;

namespace {

// A model as users write one: its forward overrides nn::Module's, so DDP and train_epoch take it.
class LinearNet : public nn::Module {
 public:
  LinearNet(int64_t in, int64_t out) : fc(register_module("fc", nn::Linear(in, out))) {}
  Tensor forward(const Tensor& x) override { return fc(x); }
  nn::Linear fc;
};

// Passes every operation to `inner`, counting those that carry tensors: on a simulated
// device each such collective of Gloo's copies its input to the host once (its staging).
class CountingGroup : public dist::ProcessGroup {
 public:
  explicit CountingGroup(std::shared_ptr<dist::ProcessGroup> inner)
      : ProcessGroup(inner->rank(), inner->size(), inner->device()), inner_(std::move(inner)) {}
  std::string backend_name() const override { return inner_->backend_name(); }
  std::shared_ptr<dist::Work> broadcast(Tensor& t, int root) override { return count(inner_->broadcast(t, root)); }
  std::shared_ptr<dist::Work> all_reduce(Tensor& t, dist::ReduceOp op) override {
    return count(inner_->all_reduce(t, op));
  }
  std::shared_ptr<dist::Work> reduce(Tensor& t, int root, dist::ReduceOp op) override {
    return count(inner_->reduce(t, root, op));
  }
  std::shared_ptr<dist::Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input) override {
    return count(inner_->all_gather(outputs, input));
  }
  std::shared_ptr<dist::Work> gather(std::vector<Tensor>& outputs, const Tensor& input, int root) override {
    return count(inner_->gather(outputs, input, root));
  }
  std::shared_ptr<dist::Work> scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    return count(inner_->scatter(output, inputs, root));
  }
  std::shared_ptr<dist::Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                             dist::ReduceOp op) override {
    return count(inner_->reduce_scatter(output, inputs, op));
  }
  std::shared_ptr<dist::Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) override {
    return count(inner_->all_to_all(outputs, inputs));
  }
  std::shared_ptr<dist::Work> barrier() override { return inner_->barrier(); }
  std::shared_ptr<dist::Work> send(const Tensor& t, int dst, int tag) override {
    return count(inner_->send(t, dst, tag));
  }
  std::shared_ptr<dist::Work> recv(Tensor& t, int src, int tag) override { return count(inner_->recv(t, src, tag)); }

  int operations() const { return operations_; }

 private:
  std::shared_ptr<dist::Work> count(std::shared_ptr<dist::Work> work) {
    ++operations_;
    return work;
  }
  std::shared_ptr<dist::ProcessGroup> inner_;
  int operations_ = 0;
};

// Runs body(run) on `size` threads, each a dist::DistributedContext whose Gloo group is on sim:rank.
void run_ranks_on_sim(int size, const std::function<void(const dist::DistributedContext&)>& body,
                      bool counting = false) {
  brisk::testing::run_store_ranks(size, [&](int r, std::shared_ptr<dist::Store> store) {
    dist::DistributedContext run;
    run.enabled = true;
    run.rank = run.local_rank = r;
    run.world_size = size;
    run.backend = "gloo";
    run.device = sim_device(r);
    dist::ProcessGroupOptions options;
    options.device = run.device;
    run.group = std::make_shared<dist::ProcessGroupGloo>(std::move(store), r, size, options, "127.0.0.1");
    if (counting) run.group = std::make_shared<CountingGroup>(run.group);
    body(run);
  });
}

}  // namespace

TEST_CASE("all_reduce_metrics: the ranks' sums, reduced on the group's device, on every rank") {
  run_ranks_on_sim(2, [](const dist::DistributedContext& run) {
    THREAD_REQUIRE(run.group->device() == sim_device(run.rank));
    const double r = run.rank;
    MetricSums mine(scalar_tensor(1.5 + r, TensorOptions(kFloat32).device(run.device)),
                    scalar_tensor(3 + run.rank, TensorOptions(kInt64).device(run.device)), 10 + run.rank);
    Metrics all = all_reduce_metrics(mine, run);
    THREAD_CHECK(all.loss_sum == 4.0);
    THREAD_CHECK(all.correct == 7);
    THREAD_CHECK(all.count == 21);
    // Sums kept elsewhere go to the group's device for the collective.
    Metrics from_host = all_reduce_metrics(MetricSums(scalar_tensor(1.0), scalar_tensor(2, kInt64), 3), run);
    THREAD_CHECK(from_host.loss_sum == 2.0);
    THREAD_CHECK(from_host.correct == 4);
    THREAD_CHECK(from_host.count == 6);
  });
}

TEST_CASE("a DDP training epoch on devices copies nothing to the host but Gloo's staging of its collectives") {
  std::atomic<uint64_t> operations{0};
  uint64_t copies = 0;
  run_ranks_on_sim(
      2,
      [&](const dist::DistributedContext& run) {
        auto& counting = dynamic_cast<CountingGroup&>(*run.group);
        manual_seed(0);
        auto linear = std::make_shared<LinearNet>(2, 2);
        linear->to(run.device);
        std::shared_ptr<dist::DistributedDataParallelBase> trained = wrap_ddp(linear, run);
        optim::SGD optimizer(linear->parameters(), optim::SGDOptions(0.1).momentum(0.9));
        Generator gen(7);
        Tensor x = randn({32, 2}, {}, &gen);
        auto set = std::make_shared<data::TensorDataset>(x, x.sum({1}).gt(0.0).to(kInt64));
        data::DataLoader loader(set, data::DataLoaderOptions().batch_size(8));
        checkpoint::Progress progress;
        train_epoch(*trained, optimizer, nullptr, loader, run.device, progress);  // buckets rebuilt after it

        // Copies are counted process-wide: the barriers keep the other rank out of the window.
        run.group->barrier()->wait();
        if (run.rank == 0) copies = sim::copy_counts().device_to_host;
        run.group->barrier()->wait();
        const int before = counting.operations();
        MetricSums sums = train_epoch(*trained, optimizer, nullptr, loader, run.device, progress);
        operations += static_cast<uint64_t>(counting.operations() - before);
        run.group->barrier()->wait();
        if (run.rank == 0) copies = sim::copy_counts().device_to_host - copies;
        run.group->barrier()->wait();
        THREAD_CHECK(sums.count() == 32);
      },
      /*counting=*/true);
  CHECK(operations == 8);       // 4 steps of 2 ranks, each one all-reduce of the gradients' bucket
  CHECK(copies == operations);  // and no other read of a device tensor
}

TEST_CASE("gradient accumulation under DDP: only the last micro-step all-reduces; 2 ranks equal one process") {
  // float64 examples; each step takes 16 of them, in order: one process in one batch, each of
  // 2 ranks in 2 micro-batches of 4 (DistributedSampler without shuffling deals example i to
  // rank i % 2, so a step of both ranks covers the same 16 examples).
  Generator gen(11);
  Tensor x = randn({64, 3}, TensorOptions(kFloat64), &gen);
  auto set = std::make_shared<data::TensorDataset>(x, x.sum({1}).gt(0.0).to(kInt64));
  const StepOptions step{/*label_smoothing=*/0.1, /*max_grad_norm=*/0.0, /*accumulate=*/2};
  auto make_model = [] {
    manual_seed(0);
    auto linear = std::make_shared<LinearNet>(3, 2);
    linear->to(kFloat64);
    return linear;
  };

  std::shared_ptr<LinearNet> reference = make_model();
  optim::SGD reference_optimizer(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  data::DataLoader whole(set, data::DataLoaderOptions().batch_size(16));
  checkpoint::Progress reference_progress;
  for (int epoch = 0; epoch < 2; ++epoch) {
    train_epoch(*reference, reference_optimizer, nullptr, whole, kCPU, reference_progress, nullptr,
                StepOptions{step.label_smoothing});
  }
  REQUIRE(reference_progress.step == 8);

  // Built here, not on the rank threads: make_model seeds the process's one default generator,
  // which concurrent ranks would draw from in turns (rank 0's model, broadcast to the others,
  // must be the reference's).
  const std::vector<std::shared_ptr<LinearNet>> models{make_model(), make_model()};
  std::vector<int> operations(2);
  std::vector<std::vector<Tensor>> trained(2);
  run_ranks_on_sim(
      2,
      [&](const dist::DistributedContext& run) {
        auto& counting = dynamic_cast<CountingGroup&>(*run.group);
        std::shared_ptr<LinearNet> linear = models[run.rank];
        linear->to(run.device);
        std::shared_ptr<dist::DistributedDataParallelBase> ddp = wrap_ddp(linear, run);
        optim::SGD optimizer(linear->parameters(), optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
        auto sampler = std::make_shared<data::DistributedSampler>(set->size(), run.world_size, run.rank,
                                                                  data::DistributedSamplerOptions().shuffle(false));
        data::DataLoader shard(set, sampler, data::DataLoaderOptions().batch_size(4));
        checkpoint::Progress progress;
        train_epoch(*ddp, optimizer, nullptr, shard, run.device, progress, nullptr, step);  // buckets rebuilt after it
        const int before = counting.operations();
        train_epoch(*ddp, optimizer, nullptr, shard, run.device, progress, nullptr, step);
        operations[run.rank] = counting.operations() - before;
        THREAD_CHECK(progress.step == 8);
        for (const Tensor& p : linear->parameters()) trained[run.rank].push_back(p.to(kCPU));
      },
      /*counting=*/true);
  // 4 steps of 2 micro-batches an epoch: one all-reduce a step, none for the no_sync micro-steps.
  CHECK(operations == std::vector<int>{4, 4});
  const std::vector<Tensor> want = reference->parameters();
  for (int rank = 0; rank < 2; ++rank) {
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK((trained[rank][i] - want[i]).abs().max().item<double>() < 1e-12);
    }
  }
}

TEST_CASE("broadcast_buffers: every rank's BatchNorm statistics become rank 0's, the model it saves") {
  run_ranks_on_sim(2, [](const dist::DistributedContext& run) {
    nn::BatchNorm1d norm(3);
    norm->to(run.device);
    norm->running_mean.fill_(1.0 + run.rank);
    broadcast_buffers(*norm, run);
    THREAD_CHECK(norm->running_mean.to(kCPU).to_vector<float>() == std::vector<float>{1, 1, 1});
  });
}
