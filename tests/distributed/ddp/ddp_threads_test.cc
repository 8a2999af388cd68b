// DistributedDataParallel over in-process ranks (ThreadProcessGroup): N ranks with batch B
// end with the parameters of one process trained with batch N*B, with bucketing, bucket
// rebuild, no_sync accumulation, unused parameters, BatchNorm buffers and the bf16 hook; and
// the errors for mismatched shapes, unused parameters and uneven inputs name rank and
// parameter. The same scenarios run across real processes in ddp_multiprocess_test.
#include <catch2/catch.hpp>

#include <set>

#include "distributed/ddp/bf16_compress_hook.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "models/mlp.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/test_models.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

constexpr double kLr = 0.1;
constexpr int kSteps = 3;
constexpr int64_t kB = 4;  // rows per rank and step

struct RankResult {
  nn::StateDict state;
  std::vector<std::vector<size_t>> initial_buckets, final_buckets;
  std::vector<size_t> ready_order;
  std::vector<std::string> collectives;
  std::string error;
};

// Runs fn on `world` thread ranks; each rank's exception is recorded, not rethrown.
std::vector<RankResult> run_world(int world,
                                  const std::function<void(int, std::shared_ptr<ProcessGroup>, RankResult&)>& fn,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto shared = std::make_shared<ThreadWorld>(world, timeout);
  std::vector<RankResult> results(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    try {
      fn(rank, group, results[rank]);
    } catch (const std::exception& e) {
      results[rank].error = e.what();
    }
    results[rank].collectives = group->history();
  });
  return results;
}

DistributedDataParallelOptions small_buckets() {
  // 105 and 209 bytes: the MLP below gets three buckets.
  return DistributedDataParallelOptions().bucket_cap_mb(0.0002).first_bucket_cap_mb(0.0001);
}

models::MLPOptions mlp_options() { return models::MLPOptions(8, 4).hidden({16, 12}); }

void check_matches(const std::vector<RankResult>& results, const nn::StateDict& reference, double tolerance = 1e-5) {
  for (size_t r = 0; r < results.size(); ++r) {
    INFO("rank " << r << " of " << results.size() << ": " << results[r].error);
    REQUIRE(results[r].error.empty());
    CHECK(max_abs_diff(results[r].state, reference) < tolerance);
    CHECK(max_abs_diff(results[r].state, results[0].state) == 0.0);
  }
}

TEST_CASE("DDP: N ranks with batch B match one process with batch N*B") {
  for (int world : {1, 2, 3}) {
    models::MLP reference(mlp_options());
    const nn::StateDict init = snapshot(*reference);
    std::vector<Batch> data;
    for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 100 + s));
    optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(kLr).momentum(0.9));
    for (int s = 0; s < kSteps; ++s) {
      ref_opt.zero_grad();
      F::cross_entropy(reference(data[s].x), data[s].y).backward();
      ref_opt.step();
    }
    auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult& out) {
      models::MLP model(mlp_options());
      load_perturbed(*model, init, rank);
      auto ddp = DistributedDataParallel(model, group, small_buckets());
      out.initial_buckets = ddp->reducer().bucket_indices();
      optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr).momentum(0.9));
      for (int s = 0; s < kSteps; ++s) {
        opt.zero_grad();
        Batch mine = data[s].rows(rank * kB, kB);
        F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
        opt.step();
      }
      out.final_buckets = ddp->reducer().bucket_indices();
      out.state = snapshot(*ddp.module());
    });
    INFO("world size " << world);
    check_matches(results, snapshot(*reference));
    // Six parameters in reverse registration order: layers.2's bias and weight (208 bytes)
    // reach the first cap (105), layers.1's (240 bytes) and layers.0's reach the next (209).
    CHECK(results[0].initial_buckets == std::vector<std::vector<size_t>>{{5, 4}, {3, 2}, {1, 0}});
  }
}

TEST_CASE("DDP: buckets are rebuilt in the order gradients became ready") {
  const int world = 2;
  ReversedNet reference;
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 200 + s));
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(kLr));
  for (int s = 0; s < kSteps; ++s) {
    ref_opt.zero_grad();
    F::cross_entropy(reference(data[s].x), data[s].y).backward();
    ref_opt.step();
  }
  // A zero-byte cap puts every parameter in its own bucket.
  auto options = DistributedDataParallelOptions().bucket_cap_mb(1e-12).first_bucket_cap_mb(1e-12);
  auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult& out) {
    ReversedNet model;
    load_perturbed(*model, init, rank);
    auto ddp = DistributedDataParallel(model, group, options);
    out.initial_buckets = ddp->reducer().bucket_indices();
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      Batch mine = data[s].rows(rank * kB, kB);
      F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
      opt.step();
      if (s == 0) out.ready_order = ddp->reducer().ready_order();
    }
    out.final_buckets = ddp->reducer().bucket_indices();
    out.state = snapshot(*model);
  });
  check_matches(results, snapshot(*reference));
  // Registration: late.weight 0, late.bias 1, mid 2-3, early 4-5. Buckets start reversed,
  // but `late` (used last in forward) gets its gradients first.
  CHECK(results[0].initial_buckets == std::vector<std::vector<size_t>>{{5}, {4}, {3}, {2}, {1}, {0}});
  const auto& order = results[0].ready_order;
  REQUIRE(order.size() == 6);
  CHECK(std::set<size_t>(order.begin(), order.begin() + 2) == std::set<size_t>{0, 1});
  CHECK(std::set<size_t>(order.begin() + 2, order.begin() + 4) == std::set<size_t>{2, 3});
  std::vector<std::vector<size_t>> expected;
  for (size_t index : order) expected.push_back({index});
  for (const auto& result : results) CHECK(result.final_buckets == expected);
}

TEST_CASE("DDP: no_sync accumulates locally and the next backward reduces the sum") {
  const int world = 2;
  models::MLP reference(mlp_options());
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;  // per step: micro-batch m of rank r is rows (m * world + r) * B
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(2 * world * kB, {8}, 4, 300 + s));
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(kLr));
  for (int s = 0; s < kSteps; ++s) {
    ref_opt.zero_grad();
    F::cross_entropy(reference(data[s].x), data[s].y).backward();
    ref_opt.step();
  }
  auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult& out) {
    models::MLP model(mlp_options());
    load_perturbed(*model, init, rank);
    auto ddp = DistributedDataParallel(model, group, small_buckets());
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      Batch first = data[s].rows(rank * kB, kB), second = data[s].rows((world + rank) * kB, kB);
      {
        auto guard = ddp->no_sync();
        (F::cross_entropy(ddp->forward(first.x), first.y) * 0.5).backward();
      }
      (F::cross_entropy(ddp->forward(second.x), second.y) * 0.5).backward();
      opt.step();
    }
    out.state = snapshot(*model);
  });
  check_matches(results, snapshot(*reference));
  // The no_sync backwards issue no all-reduce: per step one uneven-input check per forward
  // and one all-reduce per bucket (3) after the second.
  size_t all_reduces = 0;
  for (const auto& name : results[0].collectives) all_reduces += name.rfind("all_reduce", 0) == 0;
  CHECK(all_reduces == kSteps * (2 + 3));
}

// The loss of one rank's micro-batch: BranchNet with the head chosen per (step, micro, rank).
using HeadChoice = std::function<bool(int step, int micro, int rank)>;

void run_unused_parameters_case(const HeadChoice& use_branch, int micro_batches) {
  const int world = 2;
  BranchNet reference;
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(micro_batches * world * kB, {8}, 4, 400 + s));
  auto rows = [&](int s, int m, int r) { return data[s].rows((m * world + r) * kB, kB); };
  const double scale = 1.0 / micro_batches;
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(kLr));
  for (int s = 0; s < kSteps; ++s) {
    ref_opt.zero_grad();
    Tensor loss;
    for (int m = 0; m < micro_batches; ++m) {
      for (int r = 0; r < world; ++r) {
        Batch b = rows(s, m, r);
        Tensor part = F::cross_entropy(reference->forward(b.x, use_branch(s, m, r)), b.y) * (scale / world);
        loss = loss.defined() ? loss + part : part;
      }
    }
    loss.backward();
    ref_opt.step();
  }
  auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult& out) {
    BranchNet model;
    load_perturbed(*model, init, rank);
    auto ddp = DistributedDataParallel(model, group, small_buckets().find_unused_parameters(true));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      for (int m = 0; m < micro_batches; ++m) {
        Batch b = rows(s, m, rank);
        std::optional<NoSyncGuard> guard;
        if (m + 1 < micro_batches) guard.emplace(*ddp);
        (F::cross_entropy(ddp->forward(b.x, use_branch(s, m, rank)), b.y) * scale).backward();
      }
      opt.step();
    }
    out.state = snapshot(*model);
  });
  check_matches(results, snapshot(*reference));
}

TEST_CASE("DDP: find_unused_parameters with a head that changes per step") {
  run_unused_parameters_case([](int step, int, int) { return step % 2 == 1; }, 1);
}

TEST_CASE("DDP: find_unused_parameters with a head that differs per rank") {
  run_unused_parameters_case([](int step, int, int rank) { return (step + rank) % 2 == 1; }, 1);
}

TEST_CASE("DDP: no_sync micro-batches that use different parameters are all reduced") {
  // Rank 0's first micro-batch alone uses `branch`: locally unused on rank 1 and in every
  // synchronizing micro-batch, it must still be averaged at the synchronizing step.
  run_unused_parameters_case([](int, int micro, int rank) { return micro == 0 && rank == 0; }, 2);
}

TEST_CASE("DDP: BatchNorm buffers are broadcast from rank 0 before each forward") {
  const int world = 2;
  BatchNormNet reference;
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {2, 4, 4}, 4, 500 + s));
  // Each rank normalizes its own rows; rank 0's running statistics are the ones kept.
  optim::SGD ref_opt(reference->parameters(), optim::SGDOptions(kLr));
  for (int s = 0; s < kSteps; ++s) {
    ref_opt.zero_grad();
    Tensor loss = F::cross_entropy(reference(data[s].rows(0, kB).x), data[s].rows(0, kB).y) * (1.0 / world);
    nn::StateDict kept = snapshot(*reference);
    for (int r = 1; r < world; ++r) {
      Batch b = data[s].rows(r * kB, kB);
      loss = loss + F::cross_entropy(reference(b.x), b.y) * (1.0 / world);
    }
    for (const auto& [name, buffer] : reference->named_buffers()) native::copy_(const_cast<Tensor&>(buffer), kept[name]);
    loss.backward();
    ref_opt.step();
  }
  std::vector<nn::StateDict> synced(world);
  auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult& out) {
    BatchNormNet model;
    load_perturbed(*model, init, rank);
    {
      NoGradGuard no_grad;
      for (Tensor b : model->buffers()) {
        if (b.is_floating_point()) b.add_(static_cast<double>(rank));
      }
    }
    auto ddp = DistributedDataParallel(model, group, small_buckets());
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr));
    for (int s = 0; s < kSteps; ++s) {
      opt.zero_grad();
      Batch mine = data[s].rows(rank * kB, kB);
      F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
      opt.step();
    }
    out.state = snapshot(*model);
    // One more forward broadcasts rank 0's statistics everywhere.
    ddp->eval();
    NoGradGuard no_grad;
    ddp->forward(data[0].rows(0, kB).x);
    synced[rank] = snapshot(*model);
  });
  for (size_t r = 0; r < results.size(); ++r) {
    INFO("rank " << r << ": " << results[r].error);
    REQUIRE(results[r].error.empty());
    CHECK(max_abs_diff(synced[r], synced[0]) == 0.0);
  }
  CHECK(max_abs_diff(results[0].state, snapshot(*reference)) < 1e-5);
  CHECK(max_abs_diff(synced[1], snapshot(*reference)) < 1e-5);
}

TEST_CASE("DDP: the bf16 compression hook averages in bfloat16") {
  const int world = 2;
  models::MLP reference(mlp_options());
  const nn::StateDict init = snapshot(*reference);
  Batch data = make_batch(world * kB, {8}, 4, 600);
  std::vector<std::vector<Tensor>> exact(world), compressed(world);
  auto results = run_world(world, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult&) {
    Batch mine = data.rows(rank * kB, kB);
    for (bool bf16 : {false, true}) {
      models::MLP model(mlp_options());
      load_perturbed(*model, init, rank);
      auto ddp = DistributedDataParallel(model, group, small_buckets());
      if (bf16) ddp->register_comm_hook(std::make_shared<BF16CompressHook>(group));
      F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
      for (const Tensor& p : model->parameters()) (bf16 ? compressed : exact)[rank].push_back(p.grad());
    }
  });
  for (const auto& result : results) REQUIRE(result.error.empty());
  for (size_t i = 0; i < exact[0].size(); ++i) {
    Tensor g = compressed[0][i];
    // Representable in bfloat16, within its precision of the float32 average, equal on ranks.
    CHECK(native::equal(native::to(native::to(g, kCPU, kBFloat16), kCPU, kFloat32), g));
    CHECK(native::allclose(g, exact[0][i], 1.6e-2, 1e-4));
    CHECK(native::equal(g, compressed[1][i]));
  }
}

TEST_CASE("DDP: mismatched parameter shapes are reported with rank and name") {
  auto results = run_world(2, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult&) {
    models::MLP model(models::MLPOptions(8, 4).hidden({16, rank == 0 ? 12 : 13}));
    auto ddp = DistributedDataParallel(model, group);
  });
  for (const auto& result : results) {
    CHECK_THAT(result.error, Contains("parameter layers.1.weight has shape [13, 16] float32 on rank 1 but "
                                      "[12, 16] float32 on rank 0"));
  }
}

TEST_CASE("DDP: a parameter without gradient is an error naming it, unless find_unused_parameters") {
  auto results = run_world(2, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult&) {
    BranchNet model;
    auto ddp = DistributedDataParallel(model, group);
    Batch b = make_batch(kB, {8}, 4, 700 + rank);
    F::cross_entropy(ddp->forward(b.x, false), b.y).backward();
  });
  for (size_t r = 0; r < results.size(); ++r) {
    CHECK_THAT(results[r].error, Contains(fmt::format("on rank {}", r)));
    CHECK_THAT(results[r].error, Contains("branch.weight (index 4), branch.bias (index 5)"));
    CHECK_THAT(results[r].error, Contains("find_unused_parameters(true)"));
  }
}

TEST_CASE("DDP: a rank that runs out of inputs is named on every rank") {
  auto results = run_world(2, [&](int rank, std::shared_ptr<ProcessGroup> group, RankResult&) {
    models::MLP model(mlp_options());
    auto ddp = DistributedDataParallel(model, group);
    const int batches = rank == 1 ? 2 : 3;
    for (int s = 0; s < batches; ++s) {
      Batch b = make_batch(kB, {8}, 4, 800 + s);
      F::cross_entropy(ddp->forward(b.x), b.y).backward();
    }
    ddp->join();
  });
  for (size_t r = 0; r < results.size(); ++r) {
    INFO("rank " << r);
    CHECK_THAT(results[r].error, Contains("uneven inputs: rank 1 after 2 training iterations ran out of inputs"));
    CHECK_THAT(results[r].error, Contains("rank 0 (iteration 3) still trained"));
  }
  // With equal inputs, join() returns on every rank.
  auto even = run_world(2, [&](int, std::shared_ptr<ProcessGroup> group, RankResult&) {
    models::MLP model(mlp_options());
    auto ddp = DistributedDataParallel(model, group);
    Batch b = make_batch(kB, {8}, 4, 900);
    F::cross_entropy(ddp->forward(b.x), b.y).backward();
    ddp->join();
  });
  for (const auto& result : even) CHECK(result.error.empty());
}

}  // namespace
}  // namespace brisk::dist::testing
