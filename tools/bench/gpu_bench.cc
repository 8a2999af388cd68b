// Brisk's CUDA backend on the numbers that decide training speed, timed as
// /work/.library/device/METHOD.md asks: CUDA events around each repetition, warm-up first,
// the median of many repetitions, random (never zero) inputs larger than the L2 cache.
//
//   copy_d2d      cudaMemcpyAsync device to device: the bandwidth ceiling (GB/s, read + write)
//   add, mul      c = a + b, c = a * b over 64M float32 (GB/s: 2 reads + 1 write)
//   sum           a.sum() over 64M float32 (GB/s: 1 read)
//   matmul_*      4096 x 4096 x 4096 products in float32, TF32, bfloat16 (TFLOP/s)
//   small_add     host time per call of a + b on 1024-element tensors, 10000 calls in a row
//                 and one synchronize at the end (microseconds per call)
//   small_add_kernels, small_add_busy
//                 the same calls once more, recorded through CUPTI (cuda/activity_recorder.h):
//                 kernels per call and the share of their time the GPU was busy (a launch-bound
//                 loop is far below 100%), as train_bench reports them per training step
//
// Prints one line per metric: key, value, unit, description (tab-separated), which
// tools/gpu/gpu_bench_table.py joins with gpu_bench_torch.py's lines into one table.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "cuda/activity_recorder.h"
#include "cuda/blas.h"
#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/stream.h"
#include "tools/bench/timing.h"

namespace brisk {
namespace {

constexpr int64_t kElements = int64_t{64} << 20;
constexpr int64_t kMatrix = 4096;
constexpr int kWarmup = 3;
constexpr int kRepetitions = 30;

// Median over kRepetitions of the device time of f(), in milliseconds.
double median_ms(const std::function<void()>& f) {
  cudaStream_t stream = cuda::current_stream(0);
  for (int i = 0; i < kWarmup; ++i) f();
  BRISK_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  BRISK_CUDA_CHECK(cudaEventCreate(&start));
  BRISK_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int i = 0; i < kRepetitions; ++i) {
    BRISK_CUDA_CHECK(cudaEventRecord(start, stream));
    f();
    BRISK_CUDA_CHECK(cudaEventRecord(stop, stream));
    BRISK_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BRISK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  BRISK_CUDA_CHECK(cudaEventDestroy(start));
  BRISK_CUDA_CHECK(cudaEventDestroy(stop));
  return bench::median(times);
}

void report(const char* key, double value, const char* unit, const char* description) {
  std::printf("%s\t%.2f\t%s\t%s\n", key, value, unit, description);
  std::fflush(stdout);
}

Tensor random_on_gpu(const Shape& shape, DType dtype) {
  return rand(shape, TensorOptions(kFloat32).device(cuda_device(0))).to(dtype);
}

void bandwidth() {
  Tensor a = random_on_gpu({kElements}, kFloat32);
  Tensor b = random_on_gpu({kElements}, kFloat32);
  Tensor c = empty({kElements}, TensorOptions(kFloat32).device(cuda_device(0)));
  double bytes = static_cast<double>(kElements) * sizeof(float);
  double ms = median_ms([&] {
    BRISK_CUDA_CHECK(cudaMemcpyAsync(c.raw_data(), a.raw_data(), static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
                                     cuda::current_stream(0)));
  });
  report("copy_d2d", 2 * bytes / ms / 1e6, "GB/s", "device-to-device memcpy, 256 MiB (read + write)");
  ms = median_ms([&] { c = add(a, b); });
  report("add", 3 * bytes / ms / 1e6, "GB/s", "a + b, 64M float32 (2 reads + 1 write)");
  ms = median_ms([&] { c = mul(a, b); });
  report("mul", 3 * bytes / ms / 1e6, "GB/s", "a * b, 64M float32 (2 reads + 1 write)");
  Tensor s;
  ms = median_ms([&] { s = sum(a); });
  BRISK_CHECK(std::abs(s.item<float>() / kElements - 0.5) < 0.01,
              "gpu_bench: the sum of uniform [0, 1) numbers is off");
  report("sum", bytes / ms / 1e6, "GB/s", "a.sum(), 64M float32 (1 read)");
}

void matmul_rate(const char* key, DType dtype, bool tf32, const char* description) {
  cuda::set_allow_tf32(tf32);
  Tensor a = random_on_gpu({kMatrix, kMatrix}, dtype);
  Tensor b = random_on_gpu({kMatrix, kMatrix}, dtype);
  Tensor c;
  double ms = median_ms([&] { c = matmul(a, b); });
  cuda::set_allow_tf32(false);
  double flops = 2.0 * kMatrix * kMatrix * kMatrix;
  report(key, flops / ms / 1e9, "TFLOP/s", description);
}

void small_add_overhead() {
  constexpr int kCalls = 10000;
  Tensor a = random_on_gpu({1024}, kFloat32);
  Tensor b = random_on_gpu({1024}, kFloat32);
  Tensor c;
  std::vector<double> per_call;
  for (int rep = 0; rep < 7; ++rep) {
    cuda::synchronize(0);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) c = add(a, b);
    cuda::synchronize(0);
    per_call.push_back(1e3 * bench::ms_since(start) / kCalls);
  }
  report("small_add", bench::median(per_call), "us/call", "a + b on 1024 float32, 10000 calls, host time");
  cuda::ActivityRecorder recorder;
  recorder.start();
  for (int i = 0; i < kCalls; ++i) c = add(a, b);
  cuda::synchronize(0);
  cuda::GpuActivity activity = recorder.stop();
  report("small_add_kernels", static_cast<double>(activity.kernels) / kCalls, "kernels/call",
         "kernels per call of the small adds (CUPTI)");
  report("small_add_busy", 100 * activity.busy_share(), "%", "GPU-busy share of the small adds' time (CUPTI)");
}

}  // namespace
}  // namespace brisk

int main() {
  using namespace brisk;
  if (!cuda::is_available()) {
    std::fprintf(stderr, "gpu_bench: no usable GPU\n");
    return 1;
  }
  // The build and the device, as comment lines the runner skips.
  std::istringstream info(cuda::build_info());
  for (std::string line; std::getline(info, line);) std::printf("# %s\n", line.c_str());
  bandwidth();
  matmul_rate("matmul_fp32", kFloat32, false, "4096^3 matmul, float32 (no TF32)");
  matmul_rate("matmul_tf32", kFloat32, true, "4096^3 matmul, float32 with TF32 allowed");
  matmul_rate("matmul_bf16", kBFloat16, false, "4096^3 matmul, bfloat16 (float32 accumulation)");
  small_add_overhead();
  return 0;
}
