// host_value_collectives on thread ranks whose groups are on sim devices (the NCCL contract:
// every tensor on the group's device): the values reach every rank, in rank order, and a
// group on the CPU gives the same answers.
#include <catch2/catch.hpp>

#include "distributed/host_value_collectives.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist {
namespace {

using Values = std::vector<int64_t>;

// fn(group) on three thread ranks, rank r's group on sim:r (or the CPU); each rank's result.
std::vector<Values> on_ranks(bool sim, const std::function<Values(ProcessGroup&)>& fn) {
  auto world = std::make_shared<testing::ThreadWorld>(3);
  std::vector<Values> results(3);
  testing::run_ranks(3, [&](int rank) {
    testing::ThreadProcessGroup group(world, rank, sim ? sim_device(rank) : kCPU);
    results[rank] = fn(group);
  });
  return results;
}

TEST_CASE("host value collectives: all_reduce, broadcast and all_gather through the group's device") {
  const bool sim = GENERATE(false, true);
  INFO((sim ? "sim" : "cpu"));
  auto summed = on_ranks(sim, [](ProcessGroup& g) { return all_reduce_values(g, {g.rank(), 10}, ReduceOp::SUM); });
  CHECK(summed == std::vector<Values>(3, Values{3, 30}));
  auto largest = on_ranks(sim, [](ProcessGroup& g) { return all_reduce_values(g, {g.rank() * 7}, ReduceOp::MAX); });
  CHECK(largest == std::vector<Values>(3, Values{14}));
  auto from_1 = on_ranks(sim, [](ProcessGroup& g) { return broadcast_values(g, {g.rank(), -g.rank()}, 1); });
  CHECK(from_1 == std::vector<Values>(3, Values{1, -1}));
  auto gathered = on_ranks(sim, [](ProcessGroup& g) { return all_gather_values(g, {g.rank(), 100 + g.rank()}); });
  CHECK(gathered == std::vector<Values>(3, Values{0, 100, 1, 101, 2, 102}));
  auto empty = on_ranks(sim, [](ProcessGroup& g) { return all_gather_values(g, {}); });
  CHECK(empty == std::vector<Values>(3, Values{}));
}

}  // namespace
}  // namespace brisk::dist
