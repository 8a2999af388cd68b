// All-reduce of float32 tensors from 4 KiB to 256 MiB over a process group: Gloo's (started by
// the launcher) or MPI's (started by mpirun), with the desync check (a background comparison of
// the ranks' signatures, distributed/health/desync_monitor.h) on and off. Rank 0 prints one line
// per size:
//
//   <backend> <bytes> <median us, checked> <median us, unchecked> <bus bandwidth GB/s, unchecked>
//
// The bus bandwidth is NCCL-tests': bytes / time * 2 (n - 1) / n, what each rank's links carry
// in a ring all-reduce, comparable across world sizes. run_allreduce_bench.sh runs both backends
// and the PyTorch twin (allreduce_bench_torch.py, torch.distributed over Gloo) in rounds.
//
//   bazel build -c opt //tools/bench:allreduce_bench //tools/launch
//   bazel-bin/tools/launch/launch --nproc-per-node 2 bazel-bin/tools/bench/allreduce_bench
//   mpirun -np 2 bazel-bin/tools/bench/allreduce_bench --backend mpi
// Then the median store set round trip (what a collective would pay per store access on its
// path; none do).
#include <CLI/CLI.hpp>

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

int main(int argc, char** argv) {
  std::string backend = "gloo";
  int64_t max_bytes = int64_t{256} << 20;
  CLI::App app{"all_reduce latency and bus bandwidth (run through the launcher, or mpirun for --backend mpi)"};
  app.add_option("--backend", backend, "gloo or mpi")->check(CLI::IsMember({"gloo", "mpi"}));
  app.add_option("--max-bytes", max_bytes, "the largest tensor, in bytes (from 4 KiB, by factors of 4)");
  CLI11_PARSE(app, argc, argv);
  try {
    dist::init_process_group(backend);
    const int world = dist::get_world_size();
    std::vector<int> everyone(static_cast<size_t>(world));
    std::iota(everyone.begin(), everyone.end(), 0);
    dist::ProcessGroupOptions unchecked;
    unchecked.check_desync = false;
    auto checked_group = dist::default_group();
    auto fast_group = dist::new_group(everyone, unchecked);
    if (dist::get_rank() == 0)
      std::printf("# %s, %d ranks: backend bytes checked_us unchecked_us busbw_GBps\n", backend.c_str(), world);
    for (int64_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
      Tensor t = native::full({bytes / 4}, 1.0, TensorOptions(kFloat32));
      const int runs = bytes >= (int64_t{16} << 20) ? 7 : bytes >= (int64_t{1} << 20) ? 15 : 51;
      const double checked = median_us(checked_group, t, runs);
      const double fast = median_us(fast_group, t, runs);
      const double busbw = static_cast<double>(bytes) / fast / 1e3 * 2.0 * (world - 1) / world;
      if (dist::get_rank() == 0)
        std::printf("%s %lld %.1f %.1f %.3f\n", backend.c_str(), static_cast<long long>(bytes), checked, fast, busbw);
    }
    auto store = dist::default_store();
    std::vector<double> times;
    for (int i = 0; i < 201; ++i) {
      auto start = std::chrono::steady_clock::now();
      store->set("bench/marker", std::to_string(i));
      times.push_back(1e3 * ms_since(start));
    }
    if (dist::get_rank() == 0) std::printf("# store set round trip (rank 0, median of 201): %.1f us\n", median(times));
    dist::destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
