// tools/train/distributed_run: the device a run trains on, and the metrics summed over ranks
// (threads here, each with a Gloo group on its own simulated device) on the group's device.
#include <catch2/catch.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "autograd/ops.h"
#include "distributed/prefix_store.h"
#include "distributed/process_group_gloo.h"
#include "distributed/tcp_store.h"
#include "tools/train/distributed_run.h"

using namespace brisk;
using namespace brisk::train;
using namespace std::chrono_literals;
using Catch::Contains;

namespace {

// Runs body(run) on `size` threads, each a DistributedRun whose Gloo group is on sim:rank.
void run_ranks_on_sim(int size, const std::function<void(const DistributedRun&)>& body) {
  dist::TCPStoreOptions o;
  o.port = 0;
  o.is_master = true;
  o.timeout = 10s;
  auto master = std::make_shared<dist::TCPStore>("127.0.0.1", o);
  o.is_master = false;
  o.port = master->port();
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      try {
        std::shared_ptr<dist::Store> store = r == 0 ? std::static_pointer_cast<dist::Store>(master)
                                                    : std::make_shared<dist::TCPStore>("127.0.0.1", o);
        DistributedRun run;
        run.enabled = true;
        run.rank = run.local_rank = r;
        run.world_size = size;
        run.backend = "gloo";
        run.device = sim_device(r);
        dist::ProcessGroupOptions options;
        options.device = run.device;
        run.group = std::make_shared<dist::ProcessGroupGloo>(std::make_shared<dist::PrefixStore>("test", store), r,
                                                             size, options, "127.0.0.1");
        body(run);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

TEST_CASE("resolve_device: cpu, numbered devices as given, cuda and sim by local rank when distributed") {
  CHECK(resolve_device("cpu", true, 1) == kCPU);
  CHECK(resolve_device("sim", false, 0) == sim_device(0));
  CHECK(resolve_device("sim", true, 1) == sim_device(1));
  CHECK(resolve_device("sim:3", true, 1) == sim_device(3));
  CHECK(resolve_device("sim:2", false, 0) == sim_device(2));
  CHECK_THROWS_WITH(resolve_device("tpu", false, 0), Contains("invalid device string 'tpu'"));
}

TEST_CASE("resolve_device: cuda on a machine without a GPU is an error naming the flag") {
  if (resolve_device("auto", false, 0).is_cuda()) return;  // a GPU is there: nothing to refuse
  CHECK(resolve_device("auto", true, 1) == kCPU);
  CHECK_THROWS_WITH(resolve_device("cuda", true, 1), Contains("--device cuda: "));
  CHECK_THROWS_WITH(resolve_device("cuda:1", false, 0), Contains("--device cuda:1: "));
}

TEST_CASE("all_reduce_metrics: the ranks' sums, reduced on the group's device, on every rank") {
  run_ranks_on_sim(2, [](const DistributedRun& run) {
    REQUIRE(run.group->device() == sim_device(run.rank));
    const double r = run.rank;
    MetricSums mine(scalar_tensor(1.5 + r, TensorOptions(kFloat32).device(run.device)),
                    scalar_tensor(3 + run.rank, TensorOptions(kInt64).device(run.device)), 10 + run.rank);
    Metrics all = all_reduce_metrics(mine, run);
    CHECK(all.loss_sum == 4.0);
    CHECK(all.correct == 7);
    CHECK(all.count == 21);
    // Sums kept elsewhere go to the group's device for the collective.
    Metrics from_host = all_reduce_metrics(MetricSums(scalar_tensor(1.0), scalar_tensor(2, kInt64), 3), run);
    CHECK(from_host.loss_sum == 2.0);
    CHECK(from_host.correct == 4);
    CHECK(from_host.count == 6);
  });
}
