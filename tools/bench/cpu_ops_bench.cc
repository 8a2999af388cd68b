// CPU throughput of two ops that bound most training steps: a 1024x1024 float32 matmul
// (GFLOP/s) and an out-of-place 16M-element float32 add (GB/s, counting both inputs and
// the output). Each figure is the median of repeated runs after warm-up. Prints
// "name value" lines for tools/bench/run_cpu_bench.sh, which runs the PyTorch twin
// (cpu_ops_bench_torch.py) with the same thread count and compares.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace {

using brisk::Tensor;
namespace native = brisk::native;

double median_seconds(int warmup, int runs, const std::function<void()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Tensor random_tensor(const brisk::Shape& shape, brisk::Generator& gen) {
  Tensor t = native::empty(shape);
  native::uniform_(t, -1.0, 1.0, &gen);
  return t;
}

}  // namespace

int main() {
  brisk::Generator gen(0);
  std::printf("threads %d\n", brisk::get_num_threads());

  const int64_t n = 1024;
  Tensor a = random_tensor({n, n}, gen), b = random_tensor({n, n}, gen);
  double mm = median_seconds(3, 20, [&] { native::mm(a, b); });
  std::printf("matmul_1024_f32_gflops %.2f\n", 2.0 * n * n * n / mm / 1e9);

  const int64_t numel = 16 * 1024 * 1024;
  Tensor x = random_tensor({numel}, gen), y = random_tensor({numel}, gen);
  double add = median_seconds(3, 20, [&] { native::binary(brisk::BinaryOp::Add, x, y, {1.0, 0.0}); });
  std::printf("add_16m_f32_gbps %.2f\n", 3.0 * numel * sizeof(float) / add / 1e9);
  return 0;
}
