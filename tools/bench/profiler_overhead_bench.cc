// What brisk::profiler costs when off, and when on. Single-threaded kernels; times are CPU
// time of this process (CLOCK_PROCESS_CPUTIME_ID), medians of repeated runs, so a busy
// machine inflates them less than wall time.
//
//   1. one disabled instrumentation point (RecordScope while no profiler records), against an
//      empty loop of the same shape: the cost of every hook when off;
//   2. a training step of an MLP (forward, backward, SGD step) with the profiler off, and the
//      number of hooks it passes (= events when on): off-overhead = hooks x cost per hook, as
//      a share of the step;
//   3. the same step with the profiler recording: the cost when on.
//
//   bazel run -c opt //tools/bench:profiler_overhead_bench
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "autograd/ops.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "profiler/profiler.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"
#include "tools/bench/timing.h"

using namespace brisk;

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median_cpu_seconds(int runs, const std::function<void()>& f) {
  f();  // warm-up
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    double start = cpu_seconds();
    f();
    times.push_back(cpu_seconds() - start);
  }
  return bench::median(times);
}

constexpr int64_t kLoop = 100'000'000;

void empty_loop() {
  for (int64_t i = 0; i < kLoop; ++i) asm volatile("" ::: "memory");
}

void disabled_scopes() {
  for (int64_t i = 0; i < kLoop; ++i) {
    profiler::RecordScope scope(profiler::Category::Op, "op");
    asm volatile("" ::: "memory");
  }
}

}  // namespace

int main() {
  set_num_threads(1);
  double empty = median_cpu_seconds(5, empty_loop);
  double scopes = median_cpu_seconds(5, disabled_scopes);
  double hook_ns = std::max(0.0, (scopes - empty) / static_cast<double>(kLoop) * 1e9);
  std::printf("disabled hook: %.3f ns (loop of %lld: %.3f s, empty loop %.3f s)\n", hook_ns,
              static_cast<long long>(kLoop), scopes, empty);

  manual_seed(0);
  models::MLP mlp(models::MLPOptions(784, 10).hidden({256, 128}));
  optim::SGD opt(mlp->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  Tensor x = randn({64, 784});
  Tensor y = native::argmax(randn({64, 10}), 1, false);
  auto step = [&] {
    opt.zero_grad();
    nn::functional::cross_entropy(mlp->forward(x), y).backward();
    opt.step();
  };
  constexpr int kSteps = 20;
  auto steps = [&] {
    for (int i = 0; i < kSteps; ++i) step();
  };
  profiler::Profiler prof;
  prof.start();
  step();
  prof.stop();
  const size_t hooks = prof.events().size();

  auto recorded_steps = [&] {
    prof.start();
    steps();
    prof.stop();
  };
  // Interleaved: off, on, off, on, ...
  std::vector<double> off_times, on_times;
  for (int round = 0; round < 7; ++round) {
    off_times.push_back(median_cpu_seconds(1, steps) / kSteps);
    on_times.push_back(median_cpu_seconds(1, recorded_steps) / kSteps);
  }
  double off_ms = bench::median(off_times) * 1e3;
  double on_ms = bench::median(on_times) * 1e3;
  double off_overhead_ns = static_cast<double>(hooks) * hook_ns;
  std::printf("MLP 784-256-128-10 step, batch 64: %.3f ms off; %zu hooks a step\n", off_ms, hooks);
  std::printf("off: %zu hooks x %.3f ns = %.1f ns a step = %.5f%% of the step\n", hooks, hook_ns, off_overhead_ns,
              100.0 * off_overhead_ns / (off_ms * 1e6));
  std::printf("on: %.3f ms a step (+%.1f%%)\n", on_ms, 100.0 * (on_ms / off_ms - 1.0));
  return 0;
}
