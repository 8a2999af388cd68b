// CPU throughput of two ops that bound most training steps: a 1024x1024 float32 matmul
// (GFLOP/s) and an out-of-place 16M-element float32 add (GB/s, counting both inputs and
// the output). Each figure is the median of repeated runs after warm-up. Prints
// "name value" lines for tools/bench/run_cpu_bench.sh, which runs the PyTorch twin
// (cpu_ops_bench_torch.py) with the same thread count and compares.
#include <cstdio>

#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"
#include "tools/bench/timing.h"

namespace {

using brisk::Tensor;
namespace native = brisk::native;
using brisk::bench::median_ms;

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
  double mm_seconds = median_ms(3, 20, [&] { native::mm(a, b); }) / 1e3;
  std::printf("matmul_1024_f32_gflops %.2f\n", 2.0 * n * n * n / mm_seconds / 1e9);

  const int64_t numel = 16 * 1024 * 1024;
  Tensor x = random_tensor({numel}, gen), y = random_tensor({numel}, gen);
  double add_seconds = median_ms(3, 20, [&] { native::binary(brisk::BinaryOp::Add, x, y, {1.0, 0.0}); }) / 1e3;
  std::printf("add_16m_f32_gbps %.2f\n", 3.0 * numel * sizeof(float) / add_seconds / 1e9);
  return 0;
}
