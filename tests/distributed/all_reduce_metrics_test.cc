// dist::all_reduce_metrics: host numbers and device tensors reduced over thread ranks whose
// groups are on sim devices (every collective's tensor on the group's device), and the
// values as they are in a process without a process group.
#include <catch2/catch.hpp>

#include <vector>

#include "distributed/all_reduce_metrics.h"
#include "distributed/distributed.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist {
namespace {

TEST_CASE("all_reduce_metrics: sums, means and maxima of host numbers, the same on every rank") {
  auto world = std::make_shared<testing::ThreadWorld>(3);
  std::vector<std::vector<double>> sums(3), means(3);
  std::vector<double> largest(3);
  testing::run_ranks(3, [&](int rank) {
    auto group = std::make_shared<testing::ThreadProcessGroup>(world, rank, sim_device(rank));
    sums[rank] = all_reduce_metrics({0.5 * rank, 10.0 + rank}, ReduceOp::SUM, group);
    means[rank] = all_reduce_metrics({1.0 * rank}, ReduceOp::AVG, group);
    largest[rank] = all_reduce_metric(7.0 * rank, ReduceOp::MAX, group);
  });
  CHECK(sums == std::vector<std::vector<double>>(3, {1.5, 33.0}));
  CHECK(means == std::vector<std::vector<double>>(3, {1.0}));
  CHECK(largest == std::vector<double>(3, 14.0));
}

TEST_CASE("all_reduce_metrics: a device tensor is reduced into a float64 copy on the group's device") {
  auto world = std::make_shared<testing::ThreadWorld>(2);
  std::vector<Tensor> reduced(2), kept(2);
  testing::run_ranks(2, [&](int rank) {
    auto group = std::make_shared<testing::ThreadProcessGroup>(world, rank, sim_device(rank));
    kept[rank] = native::full({2}, 1.5 + rank, TensorOptions(kFloat32).device(sim_device(rank)));
    reduced[rank] = all_reduce_metrics(kept[rank], ReduceOp::SUM, group);
  });
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(reduced[rank].device() == sim_device(rank));
    CHECK(reduced[rank].dtype() == kFloat64);
    CHECK(reduced[rank].to(kCPU).to_vector<double>() == std::vector<double>{4.0, 4.0});
    CHECK(kept[rank].to(kCPU).to_vector<float>() == std::vector<float>(2, 1.5f + rank));  // left as it was
  }
}

TEST_CASE("all_reduce_metrics without a process group: the values as they are") {
  REQUIRE_FALSE(is_initialized());
  CHECK(all_reduce_metrics({2.5, 3.0}) == std::vector<double>{2.5, 3.0});
  CHECK(all_reduce_metric(4.0, ReduceOp::AVG) == 4.0);
  Tensor counts = native::full({3}, 2, TensorOptions(kInt64));
  CHECK(all_reduce_metrics(counts).to_vector<int64_t>() == std::vector<int64_t>{2, 2, 2});
  CHECK_THROWS_WITH(all_reduce_metrics(native::full({2, 2}, 1.0, TensorOptions(kFloat32))),
                    Catch::Contains("all_reduce_metrics: expected a one-dimensional tensor"));
}

}  // namespace
}  // namespace brisk::dist
