// CudaBackend::copy (cuda/copy.cu): every pair of dtypes, every direction between the host and
// the GPU (and between GPUs when there are two), strided and broadcast sources, strided
// destinations on either side, blocking and not.
#include "cuda/device.h"
#include "cuda/stream.h"
#include "tests/cuda/backend_test_util.h"
#include "tests/cuda/stream_gate.h"

namespace brisk {
namespace {

using testing::kCuda;
using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;

// Conversions are the same functions on both devices: results must match exactly.
void require_equal(const Tensor& got, const Tensor& want) {
  Tensor g = got.is_cuda() ? on_cpu(got) : got;
  INFO(got.describe() << " vs " << want.describe());
  REQUIRE(g.dtype() == want.dtype());
  REQUIRE(native::equal(g, want));
}

TEST_CASE("copies convert between every pair of dtypes like the CPU", "[gpu]") {
  uint64_t seed = 0;
  for (DType from : testing::all_dtypes()) {
    for (DType to : testing::all_dtypes()) {
      INFO(dtype_name(from) << " -> " << dtype_name(to));
      // Values in [-100, 100): negative floats wrap into uint8 through int64 on both devices.
      Tensor src = random_cpu({37, 29}, from, ++seed, -100.0, 100.0);
      Tensor want = native::to(src, kCPU, to);

      require_equal(native::to(on_gpu(src), kCuda, to), want);  // device to device
      require_equal(native::to(src, kCuda, to), want);          // host to device
      require_equal(native::to(on_gpu(src), kCPU, to), want);   // device to host
      // A transposed destination, then a transposed source.
      Tensor dst = native::transpose(native::empty({29, 37}, TensorOptions(to).device(kCuda)), 0, 1);
      native::copy_(dst, on_gpu(src));
      require_equal(dst, want);
      Tensor src_t = on_gpu(native::contiguous(native::transpose(src, 0, 1)));
      Tensor dst2 = native::empty({37, 29}, TensorOptions(to).device(kCuda));
      native::copy_(dst2, native::transpose(src_t, 0, 1));
      require_equal(dst2, want);
    }
  }
}

TEST_CASE("copies to strided destinations on the host and the device", "[gpu]") {
  Tensor src = random_cpu({16, 24}, kFloat32, 3);
  Tensor host = native::zeros({16, 48}, kFloat32);
  Tensor host_view = native::slice(host, 1, 0, std::nullopt, 2);
  native::copy_(host_view, on_gpu(src));
  require_equal(host_view, src);
  require_equal(native::slice(host, 1, 1, std::nullopt, 2), native::zeros({16, 24}, kFloat32));

  Tensor device = on_gpu(native::zeros({16, 48}, kFloat64));
  Tensor device_view = native::slice(device, 1, 1, std::nullopt, 2);
  native::copy_(device_view, src);
  require_equal(device_view, native::to(src, kCPU, kFloat64));
  require_equal(native::slice(device, 1, 0, std::nullopt, 2), native::zeros({16, 24}, kFloat64));
}

TEST_CASE("broadcast sources expand on the device and from the host", "[gpu]") {
  Tensor row = random_cpu({1, 300}, kBFloat16, 5);
  Tensor want = native::contiguous(native::expand(row, {200, 300}));
  Tensor dst = native::empty({200, 300}, TensorOptions(kBFloat16).device(kCuda));
  native::copy_(dst, on_gpu(row));
  require_equal(dst, want);
  Tensor dst2 = native::empty({200, 300}, TensorOptions(kFloat32).device(kCuda));
  native::copy_(dst2, row);
  require_equal(dst2, native::to(want, kCPU, kFloat32));
}

TEST_CASE("large contiguous copies round-trip, blocking and non-blocking", "[gpu]") {
  Tensor src = random_cpu({(1 << 24) + 5}, kFloat32, 9);
  Tensor gpu = native::empty(src.sizes(), TensorOptions(kFloat32).device(kCuda));
  native::copy_(gpu, src, true);
  Tensor back = native::empty(src.sizes(), kFloat32);
  native::copy_(back, gpu, true);
  cuda::synchronize();
  require_equal(back, src);
  require_equal(native::clone(gpu), src);
}

TEST_CASE("copies between two GPUs", "[gpu]") {
  if (cuda::device_count() < 2) {
    WARN("one GPU: copies between GPUs not exercised");
    return;
  }
  Tensor src = random_cpu({64, 33}, kFloat32, 11);
  Tensor on0 = on_gpu(src);
  Tensor on1 = native::to(on0, cuda_device(1), kFloat32);
  CHECK(on1.device() == cuda_device(1));
  require_equal(on1, src);
  Tensor converted = native::empty({33, 64}, TensorOptions(kFloat16).device(cuda_device(1)));
  native::copy_(converted, native::transpose(on0, 0, 1));
  require_equal(converted, native::to(native::contiguous(native::transpose(src, 0, 1)), kCPU, kFloat16));
}

TEST_CASE("a non-blocking copy between GPUs keeps the source's memory until it has read it", "[gpu]") {
  if (cuda::device_count() < 2) {
    WARN("one GPU: copies between GPUs not exercised");
    return;
  }
  constexpr int64_t n = int64_t{1} << 22;
  cuda::Stream target(1);
  cuda::StreamGuard on_target(target);
  Tensor dst = native::empty({n}, TensorOptions(kFloat32).device(cuda_device(1)));
  cuda::testing::StreamGate gate(target);  // holds the transfer back
  {
    Tensor src = native::full({n}, 1.0, TensorOptions(kFloat32).device(cuda_device(0)));
    native::copy_(dst, src, /*non_blocking=*/true);
  }
  // src is freed while the transfer waits: the next tensor on cuda:0 may get its memory, and
  // must not overwrite it before the transfer has read it.
  Tensor reuse = native::full({n}, 2.0, TensorOptions(kFloat32).device(cuda_device(0)));
  gate.open();
  cuda::synchronize(1);
  cuda::synchronize(0);
  CHECK(native::equal(on_cpu(dst), native::full({n}, 1.0, TensorOptions(kFloat32))));
  CHECK(native::equal(on_cpu(reuse), native::full({n}, 2.0, TensorOptions(kFloat32))));
}

}  // namespace
}  // namespace brisk
