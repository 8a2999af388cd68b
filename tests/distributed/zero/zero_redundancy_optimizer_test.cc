// ZeroRedundancyOptimizer in one process: the partition function, and on thread ranks
// (ThreadProcessGroup, on the CPU and on sim devices) the step's broadcasts and the
// construction and state_dict errors.
// zero_multiprocess_test compares training, shard state and state dicts across processes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>

#include "distributed/zero/zero_redundancy_optimizer.h"
#include "optim/sgd.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist {
namespace {

using Catch::Matchers::Contains;
using Shards = std::vector<std::vector<size_t>>;

OptimizerFactory sgd() {
  return [](std::vector<Tensor> shard) { return std::make_unique<optim::SGD>(shard, optim::SGDOptions(0.5)); };
}

TEST_CASE("partition_parameters: largest first, to the least loaded rank, ties to the lowest", "[zero]") {
  // 30 -> rank 0, 20 -> rank 1, 10 -> rank 1 (20 < 30), 5 -> rank 0 (30 = 30).
  CHECK(partition_parameters({10, 30, 20, 5}, 2) == Shards{{1, 3}, {0, 2}});
  // Equal sizes keep their order: round robin.
  CHECK(partition_parameters({4, 4, 4, 4, 4}, 2) == Shards{{0, 2, 4}, {1, 3}});
  CHECK(partition_parameters({3, 1, 2}, 1) == Shards{{0, 1, 2}});
  // Fewer parameters than ranks: some shards are empty.
  CHECK(partition_parameters({7}, 3) == Shards{{0}, {}, {}});
  CHECK_THROWS_WITH(partition_parameters({1}, 0), Contains("world size 0"));
}

TEST_CASE("partition_parameters: every index once, totals within the largest size", "[zero]") {
  std::vector<int64_t> numels;
  for (int64_t i = 0; i < 40; ++i) numels.push_back((i * 37) % 101 + 1);
  for (int world : {2, 3, 5, 8}) {
    Shards shards = partition_parameters(numels, world);
    REQUIRE(shards == partition_parameters(numels, world));  // deterministic
    std::vector<size_t> all;
    std::vector<int64_t> totals;
    for (const auto& shard : shards) {
      CHECK(std::is_sorted(shard.begin(), shard.end()));
      all.insert(all.end(), shard.begin(), shard.end());
      int64_t total = 0;
      for (size_t i : shard) total += numels[i];
      totals.push_back(total);
    }
    std::sort(all.begin(), all.end());
    CHECK(all.size() == numels.size());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
    auto [low, high] = std::minmax_element(totals.begin(), totals.end());
    CHECK(*high - *low <= *std::max_element(numels.begin(), numels.end()));
  }
}

// fn(rank, group) on `world` thread ranks; returns each rank's error message ("" if none).
// Catch2's assertions are not thread-safe: the ranks record, the test thread checks.
// With `sim`, rank r's group is on its own simulated device sim:r.
std::vector<std::string> on_threads(int world, const std::function<void(int, std::shared_ptr<ProcessGroup>)>& fn,
                                    bool sim = false) {
  auto shared = std::make_shared<testing::ThreadWorld>(world, std::chrono::seconds(5));
  std::vector<std::string> errors(world);
  testing::run_ranks(world, [&](int rank) {
    try {
      fn(rank, std::make_shared<testing::ThreadProcessGroup>(shared, rank, sim ? sim_device(rank) : kCPU));
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  return errors;
}

// Sizes 6, 4, 3, 2 over 2 ranks: rank 0 owns {0, 3}, rank 1 owns {1, 2}.
std::vector<Tensor> make_params(int rank, Device device = kCPU) {
  std::vector<Tensor> params;
  for (int64_t n : {6, 4, 3, 2}) {
    // Different values per rank: only the broadcasts can make them agree.
    params.push_back(native::full({n}, 1.0 + rank, TensorOptions(kFloat32).device(device)));
    params.back().requires_grad_(true);
  }
  return params;
}

TEST_CASE("ZeroRedundancyOptimizer: owners update their shard, then broadcast it", "[zero]") {
  // On the CPU, and with each rank's group and parameters on its own simulated device.
  const bool sim = GENERATE(false, true);
  INFO((sim ? "sim" : "cpu"));
  std::vector<std::vector<std::vector<float>>> after(2);
  std::vector<Shards> partitions(2);
  std::vector<size_t> local_sizes(2), grads_left(2);
  auto errors = on_threads(
      2,
      [&](int rank, std::shared_ptr<ProcessGroup> group) {
        std::vector<Tensor> params = make_params(rank, group->device());
        ZeroRedundancyOptimizer opt(params, sgd(), group);
        partitions[rank] = opt.partition();
        local_sizes[rank] = opt.local_optimizer().param_groups()[0].params().size();
        for (size_t i = 0; i < params.size(); ++i) {
          if (i != 2) {  // 2 has no grad
            params[i].set_grad(native::full({params[i].numel()}, 2.0, TensorOptions(kFloat32).device(group->device())));
          }
        }
        opt.step();
        for (const Tensor& p : params) after[rank].push_back(p.to_vector<float>());
        opt.zero_grad();
        for (const Tensor& p : params) grads_left[rank] += p.grad().defined() ? 1 : 0;
      },
      sim);
  REQUIRE(errors == std::vector<std::string>{"", ""});
  CHECK(partitions[0] == Shards{{0, 3}, {1, 2}});
  CHECK(partitions[1] == partitions[0]);
  CHECK(local_sizes == std::vector<size_t>{2, 2});
  CHECK(grads_left == std::vector<size_t>{0, 0});
  // lr 0.5 * grad 2: parameter 0, 3 from rank 0's 1.0, parameter 1 from rank 1's 2.0;
  // parameter 2 (no grad) is rank 1's untouched 2.0 on both.
  const std::vector<std::vector<float>> expected{std::vector<float>(6, 0.0f), std::vector<float>(4, 1.0f),
                                                 std::vector<float>(3, 2.0f), std::vector<float>(2, 0.0f)};
  CHECK(after[0] == expected);
  CHECK(after[1] == expected);
}

TEST_CASE("ZeroRedundancyOptimizer: errors name the rank", "[zero]") {
  SECTION("different parameters on one rank") {
    auto errors = on_threads(2, [](int rank, std::shared_ptr<ProcessGroup> group) {
      std::vector<Tensor> params = make_params(rank);
      if (rank == 1) params.pop_back();
      ZeroRedundancyOptimizer opt(params, sgd(), group);
    });
    for (const std::string& e : errors) CHECK_THAT(e, Contains("rank 1 has 3 parameters with 13 elements but rank 0"));
  }
  SECTION("parameters not on the group's device") {
    auto errors = on_threads(
        2,
        [](int rank, std::shared_ptr<ProcessGroup> group) {
          ZeroRedundancyOptimizer opt(make_params(rank), sgd(), group);
        },
        /*sim=*/true);
    CHECK_THAT(errors[1], Contains("rank 1: parameter 0 is on cpu but the process group (threads) takes tensors on "
                                   "sim:1"));
  }
  SECTION("more ranks than parameters") {
    auto errors = on_threads(3, [](int, std::shared_ptr<ProcessGroup> group) {
      Tensor p = native::zeros({4}).requires_grad_(true);
      Tensor q = native::zeros({2}).requires_grad_(true);
      ZeroRedundancyOptimizer opt({p, q}, sgd(), group);
    });
    CHECK(errors[0].empty());
    CHECK(errors[1].empty());
    CHECK_THAT(errors[2], Contains("rank 2: 2 parameters over 3 ranks leave this rank nothing to optimize"));
  }
  SECTION("a factory that does not build one group over the shard") {
    auto errors = on_threads(2, [](int rank, std::shared_ptr<ProcessGroup> group) {
      ZeroRedundancyOptimizer opt(
          make_params(rank),
          [](std::vector<Tensor> shard) {
            return std::make_unique<optim::SGD>(
                std::vector<optim::ParamGroup>{optim::ParamGroup({shard[0]}), optim::ParamGroup({shard[1]})});
          },
          group);
    });
    CHECK_THAT(errors[1], Contains("rank 1: the factory's SGD must have exactly one parameter group"));
  }
  SECTION("state_dict without consolidation") {
    auto errors = on_threads(2, [](int rank, std::shared_ptr<ProcessGroup> group) {
      ZeroRedundancyOptimizer opt(make_params(rank), sgd(), group);
      opt.state_dict();
    });
    CHECK_THAT(errors[0], Contains("rank 0: state_dict() before consolidate_state_dict()"));
    CHECK_THAT(errors[1], Contains("rank 1: state_dict() before consolidate_state_dict()"));
  }
  SECTION("load_state_dict with another number of parameters") {
    auto errors = on_threads(2, [](int rank, std::shared_ptr<ProcessGroup> group) {
      ZeroRedundancyOptimizer opt(make_params(rank), sgd(), group);
      optim::OptimizerState state;
      state.param_groups = nlohmann::json::array({{{"lr", 0.1}, {"params", {0, 1}}}});
      opt.load_state_dict(state);
    });
    CHECK_THAT(errors[1], Contains("rank 1: the state dict's parameter group has 2 parameters, the optimizer 4"));
  }
}

}  // namespace
}  // namespace brisk::dist
