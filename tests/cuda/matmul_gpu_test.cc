// CudaBackend::batched_gemm (cuda/gemm.cc, cuBLAS) against float64 products on the CPU:
// float32 (exact float32 and TF32), float64, bfloat16 and float16; transposed operands,
// broadcast batches, strided outputs, addmm's alpha and beta, empty products.
#include "cuda/blas.h"
#include "tensor/backend.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::kCuda;
using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;
using testing::relative_error;

double bound(DType dtype) {
  switch (dtype) {
    case DType::Float64: return 1e-13;
    case DType::Float32: return 1e-5;
    case DType::Float16: return 2e-3;
    default: return 1e-2;
  }
}

// matmul of GPU copies of a and b (dtype), compared with the float64 product on the CPU.
void check_product(const Tensor& a64, const Tensor& b64, DType dtype, double max_error) {
  Tensor a = native::to(a64, kCPU, dtype), b = native::to(b64, kCPU, dtype);
  // The reference uses the rounded inputs, so only the product's own error is measured.
  Tensor want = native::matmul(native::to(a, kCPU, kFloat64), native::to(b, kCPU, kFloat64));
  Tensor got = native::matmul(on_gpu(a), on_gpu(b));
  REQUIRE(got.is_cuda());
  REQUIRE(got.dtype() == dtype);
  CHECK(relative_error(got, want) < max_error);
}

TEST_CASE("matrix products in every floating dtype match float64 on the CPU", "[gpu]") {
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
    INFO(dtype_name(dtype));
    Tensor a = random_cpu({130, 257}, kFloat64, 1);
    Tensor b = random_cpu({257, 71}, kFloat64, 2);
    check_product(a, b, dtype, bound(dtype));
    // Transposed views of either operand are read in place.
    check_product(native::transpose(random_cpu({257, 130}, kFloat64, 3), 0, 1), b, dtype, bound(dtype));
    check_product(a, native::transpose(random_cpu({71, 257}, kFloat64, 4), 0, 1), dtype, bound(dtype));
    // Batched, with a broadcast batch and a vector.
    check_product(random_cpu({3, 4, 20, 33}, kFloat64, 5), random_cpu({4, 33, 9}, kFloat64, 6), dtype, bound(dtype));
    check_product(random_cpu({5, 20, 33}, kFloat64, 7), random_cpu({33}, kFloat64, 8), dtype, bound(dtype));
    check_product(random_cpu({33}, kFloat64, 9), random_cpu({33, 12}, kFloat64, 10), dtype, bound(dtype));
  }
}

TEST_CASE("TF32 is off by default and, when allowed, stays within its precision", "[gpu]") {
  REQUIRE_FALSE(cuda::allow_tf32());
  Tensor a = random_cpu({512, 512}, kFloat64, 11);
  Tensor b = random_cpu({512, 512}, kFloat64, 12);
  check_product(a, b, kFloat32, 1e-5);
  cuda::set_allow_tf32(true);
  Tensor a32 = native::to(a, kCPU, kFloat32), b32 = native::to(b, kCPU, kFloat32);
  Tensor want = native::matmul(native::to(a32, kCPU, kFloat64), native::to(b32, kCPU, kFloat64));
  double error = relative_error(native::matmul(on_gpu(a32), on_gpu(b32)), want);
  cuda::set_allow_tf32(false);
  CHECK(error < 3e-3);
}

TEST_CASE("addmm scales by alpha and beta; beta = 0 ignores NaN in the bias", "[gpu]") {
  Tensor bias = random_cpu({40, 30}, kFloat32, 13);
  Tensor a = random_cpu({40, 50}, kFloat32, 14);
  Tensor b = random_cpu({50, 30}, kFloat32, 15);
  Tensor want = native::addmm(bias, a, b, 0.5, 2.0);
  Tensor got = native::addmm(on_gpu(bias), on_gpu(a), on_gpu(b), 0.5, 2.0);
  testing::require_matches(got, want, {1e-5, 1e-5});
  Tensor nan_bias = native::full({40, 30}, NAN, TensorOptions(kFloat32).device(kCuda));
  Tensor clean = native::addmm(nan_bias, on_gpu(a), on_gpu(b), 0.0, 1.0);
  testing::require_matches(clean, native::matmul(a, b), {1e-5, 1e-5});
}

TEST_CASE("products into strided outputs and with nothing to sum", "[gpu]") {
  Tensor a = random_cpu({1, 6, 5}, kFloat32, 16);
  Tensor b = random_cpu({1, 5, 7}, kFloat32, 17);
  Tensor want = native::bmm(a, b);
  // A column-major output, then one with a gap between rows.
  Tensor col = native::transpose(native::empty({1, 7, 6}, TensorOptions(kFloat32).device(kCuda)), 1, 2);
  backend_for(kCuda).batched_gemm(col, on_gpu(a), on_gpu(b), 1.0, 0.0);
  testing::require_matches(native::contiguous(col), want, {1e-5, 1e-6});
  Tensor wide = native::zeros({1, 6, 9}, TensorOptions(kFloat32).device(kCuda));
  Tensor gap = native::narrow(wide, 2, 1, 7);
  backend_for(kCuda).batched_gemm(gap, on_gpu(a), on_gpu(b), 1.0, 0.0);
  testing::require_matches(native::contiguous(gap), want, {1e-5, 1e-6});
  Tensor zero_k = native::matmul(on_gpu(native::empty({4, 0}, kFloat32)), on_gpu(native::empty({0, 3}, kFloat32)));
  testing::require_matches(zero_k, native::zeros({4, 3}, kFloat32));
}

TEST_CASE("integer products are refused on CUDA, as in PyTorch", "[gpu]") {
  Tensor a = on_gpu(random_cpu({3, 3}, kInt64, 18, 0, 5));
  CHECK_THROWS_WITH(native::matmul(a, a), Catch::Matchers::Contains("int64") && Catch::Matchers::Contains("CUDA"));
}

}  // namespace
}  // namespace brisk
