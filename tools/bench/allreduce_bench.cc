// All-reduce latency and bandwidth of ProcessGroupGloo, with the desync check (a background
// comparison of the ranks' signatures, distributed/health/desync_monitor.h) on and off. Run through
// the launcher; rank 0 prints one line per size:
//
//   bazel build -c opt //tools/bench:allreduce_bench //tools/launch
//   bazel-bin/tools/launch/launch --nproc-per-node 2 bazel-bin/tools/bench/allreduce_bench
//
// Columns: bytes, median microseconds with checks, without checks, and the algorithm
// bandwidth (bytes / time) without checks; then the median store set round trip.
#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "distributed/distributed.h"
#include "tensor/native/ops.h"
#include "tools/bench/timing.h"

namespace {

using namespace brisk;
using bench::median;
using bench::ms_since;

double median_us(const dist::GroupPtr& group, Tensor& t, int runs) {
  for (int i = 0; i < 3; ++i) group->all_reduce(t)->wait();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    group->barrier()->wait();
    auto start = std::chrono::steady_clock::now();
    group->all_reduce(t)->wait();
    times.push_back(1e3 * ms_since(start));
  }
  return median(times);
}

}  // namespace

int main() {
  dist::init_process_group("gloo");
  const int world = dist::get_world_size();
  std::vector<int> everyone(static_cast<size_t>(world));
  std::iota(everyone.begin(), everyone.end(), 0);
  dist::ProcessGroupOptions unchecked;
  unchecked.check_desync = false;
  auto checked_group = dist::default_group();
  auto fast_group = dist::new_group(everyone, unchecked);
  if (dist::get_rank() == 0)
    std::printf("%12s %12s %12s %10s   (%d ranks)\n", "bytes", "checked_us", "unchecked_us", "GB/s", world);
  for (int64_t numel :
       {int64_t{1}, int64_t{256}, int64_t{16384}, int64_t{262144}, int64_t{2621440}, int64_t{10485760}}) {
    Tensor t = native::full({numel}, 1.0, TensorOptions(kFloat32));
    int runs = numel >= 1000000 ? 9 : 51;
    double checked = median_us(checked_group, t, runs);
    double fast = median_us(fast_group, t, runs);
    if (dist::get_rank() == 0) {
      double bytes = static_cast<double>(numel) * 4;
      std::printf("%12.0f %12.1f %12.1f %10.3f\n", bytes, checked, fast, bytes / fast / 1e3);
    }
  }
  // A store round trip: what a collective would pay per store access on its path (none do).
  auto store = dist::default_store();
  std::vector<double> times;
  for (int i = 0; i < 201; ++i) {
    auto start = std::chrono::steady_clock::now();
    store->set("bench/marker", std::to_string(i));
    times.push_back(1e3 * ms_since(start));
  }
  if (dist::get_rank() == 0) std::printf("store set round trip (rank 0, median of 201): %.1f us\n", median(times));
  dist::destroy_process_group();
  return 0;
}
