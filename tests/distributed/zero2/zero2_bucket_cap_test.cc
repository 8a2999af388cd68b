// ZeRO-2's cap on gradient buffers under collectives that fall behind backward: a group whose
// reduce-scatters never complete before someone waits for them (the slowest network there
// is). Then nothing is freed by completing, and only the cap (GradientReduceScatter: at most
// two launched buckets keep their buffers, DeepSpeed's double buffer) bounds what backward
// holds: at any gradient's arrival, at most two launched buckets and the one being filled,
// instead of every bucket. The results are still one process's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

// A collective's Work that reports itself incomplete until it is waited for.
class CompletedWhenWaited final : public Work {
 public:
  explicit CompletedWhenWaited(std::shared_ptr<Work> inner) : inner_(std::move(inner)) {}
  bool is_completed() override { return waited_; }
  bool is_success() override { return waited_ && inner_->is_success(); }
  void wait() override {
    inner_->wait();
    waited_ = true;
  }
  std::optional<std::chrono::steady_clock::time_point> completed_at() override {
    return waited_ ? inner_->completed_at() : std::nullopt;
  }

 private:
  std::shared_ptr<Work> inner_;
  bool waited_ = false;
};

// `inner`'s collectives, its reduce-scatters completing only when waited for.
class SlowReduceScatterGroup final : public ProcessGroup {
 public:
  explicit SlowReduceScatterGroup(std::shared_ptr<ProcessGroup> inner)
      : ProcessGroup(inner->rank(), inner->size(), inner->device()), inner_(std::move(inner)) {}
  std::string backend_name() const override { return "slow reduce_scatter"; }
  std::shared_ptr<Work> broadcast(Tensor& tensor, int root) override { return inner_->broadcast(tensor, root); }
  std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op) override { return inner_->all_reduce(tensor, op); }
  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input) override {
    return inner_->all_gather(outputs, input);
  }
  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) override {
    return std::make_shared<CompletedWhenWaited>(inner_->reduce_scatter(output, inputs, op));
  }
  std::shared_ptr<Work> barrier() override { return inner_->barrier(); }

 private:
  std::shared_ptr<ProcessGroup> inner_;
};

models::MLP make_mlp() {
  manual_seed(3);
  return models::MLP(models::MLPOptions(8, 4).hidden({16, 12, 10, 8}));
}

std::vector<float> values_of(const std::vector<Tensor>& params) {
  std::vector<float> out;
  for (const Tensor& p : params) {
    std::vector<float> v = p.contiguous().to_vector<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// Each rank's batch, whose summed output is the loss: every rank's gradient is the same, so
// their average is one process's.
Tensor batch() { return native::ones({2, 8}); }

TEST_CASE("ZeRO-2 holds at most two launched buckets' gradient buffers when reduce-scatters fall behind", "[zero2]") {
  const int world = GENERATE(1, 2);
  INFO(world << " ranks");
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(60));
  std::vector<int64_t> bucket_numels;  // in launch order
  std::vector<int64_t> most_held(world, 0);
  std::vector<std::vector<float>> params(world);
  std::vector<models::MLP> mlps;  // made here: the default generator is the process's
  for (int rank = 0; rank < world; ++rank) mlps.push_back(make_mlp());
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<SlowReduceScatterGroup>(std::make_shared<ThreadProcessGroup>(shared, rank));
    models::MLP& mlp = mlps[rank];
    // Buckets of one or two parameters: ten parameters make seven buckets or more.
    auto model = Zero2DataParallel(mlp.ptr(), group, Zero2Options().first_bucket_cap_mb(1e-4).bucket_cap_mb(2e-4));
    Zero2Optimizer opt(*model, [](std::vector<Tensor> shards) {
      return std::make_unique<optim::SGD>(shards, optim::SGDOptions(0.1));
    });
    if (rank == 0) {
      for (const ParameterShards::Bucket& bucket : model->shards().buckets())
        bucket_numels.push_back(bucket.layout.gathered_numel());
    }
    // Registered after the reducer's hooks: each runs right after the reducer took a gradient.
    const GradientReduceScatter& reducer = model->reducer();
    for (const Tensor& p : model->shards().params()) {
      p.register_post_accumulate_grad_hook(
          [&, rank](Tensor&) { most_held[rank] = std::max(most_held[rank], reducer.held_bucket_numel()); });
    }
    for (int step = 0; step < 2; ++step) {
      opt.zero_grad();
      model->forward(batch()).sum().backward();
      THREAD_CHECK(reducer.held_bucket_numel() == 0);
      opt.step();
    }
    params[rank] = values_of(mlp->parameters());
  });
  REQUIRE(bucket_numels.size() >= 5);
  int64_t total = 0, largest = 0, three_in_a_row = 0;
  for (size_t b = 0; b < bucket_numels.size(); ++b) {
    total += bucket_numels[b];
    largest = std::max(largest, bucket_numels[b]);
    if (b >= 2)
      three_in_a_row = std::max(three_in_a_row, bucket_numels[b - 2] + bucket_numels[b - 1] + bucket_numels[b]);
  }
  INFO("buckets " << bucket_numels.size() << ", total " << total << " elements");
  REQUIRE(three_in_a_row < total);
  for (int rank = 0; rank < world; ++rank) {
    INFO("rank " << rank);
    CHECK(most_held[rank] > largest);  // launched buckets were held: the collectives were behind
    CHECK(most_held[rank] <= three_in_a_row);
  }
  models::MLP single = make_mlp();
  optim::SGD opt(single->parameters(), optim::SGDOptions(0.1));
  for (int step = 0; step < 2; ++step) {
    opt.zero_grad();
    single(batch()).sum().backward();
    opt.step();
  }
  for (int rank = 0; rank < world; ++rank) CHECK(params[rank] == values_of(single->parameters()));
}

}  // namespace
}  // namespace brisk::dist::testing
