// The GPU tests' comparison helpers (backend_test_util.h), run on the simulated device so that
// CI checks them without a GPU: a helper that reports a correct result as wrong (or a wrong
// one as right) would otherwise first show on a lent GPU. relative_error once read every
// correct product as 1.0, because it subtracted with native::binary's default alpha of 0;
// require_same_behavior once compared exp of int64 (a float32 result) with int64's exact
// tolerance.
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::random_cpu;
using testing::relative_error;
using testing::Tolerance;

const Device kSim = sim_device(0);

TEST_CASE("relative_error measures ||got - want|| / ||want|| for a device result") {
  Tensor a = random_cpu({13, 25}, kFloat64, 1), b = random_cpu({25, 7}, kFloat64, 2);
  Tensor want = native::matmul(a, b);
  // The same product on the simulated device: the same kernels, so no error at all.
  Tensor got = native::matmul(native::to(a, kSim, kFloat64), native::to(b, kSim, kFloat64));
  CHECK(relative_error(got, want) == 0.0);
  // Twice the result, nothing, or its negation: errors of 1, 1 and 2.
  CHECK(relative_error(native::binary(BinaryOp::Mul, got, Scalar(2.0)), want) == Approx(1.0).epsilon(1e-12));
  CHECK(relative_error(native::zeros(want.sizes(), TensorOptions(kFloat64).device(kSim)), want) ==
        Approx(1.0).epsilon(1e-12));
  CHECK(relative_error(native::unary(UnaryOp::Neg, got), want) == Approx(2.0).epsilon(1e-12));
  // One element off by 1e-3 of the norm.
  Tensor off = native::clone(want);
  off.data_ptr<double>()[0] += 1e-3 * native::reduce(ReduceOp::Norm, want, {}, false, OpParams{2.0}).item<double>();
  CHECK(relative_error(native::to(off, kSim, kFloat64), want) == Approx(1e-3).epsilon(1e-9));
}

TEST_CASE("relative_error reads a float32 result in float64 and refuses mismatched shapes") {
  Tensor want = random_cpu({40}, kFloat64, 3);
  Tensor got = native::to(want, kSim, kFloat32);
  double error = relative_error(got, want);
  CHECK(error > 0.0);
  CHECK(error < 1e-7);  // float32 rounding: at most 2^-24 per element
  CHECK(relative_error(native::zeros({40}, kFloat32), native::zeros({40}, kFloat64)) == 0.0);
}

TEST_CASE("require_same_behavior compares within the tolerance of the result's dtype, not the inputs'") {
  Tensor x = random_cpu({64}, kInt64, 4, -3.0, 3.0);
  // exp of int64 is float32; the device's result is moved one float32 ulp up, as CUDA's expf
  // may round it (2 ulp) where the CPU's does not.
  auto exp_one_ulp_apart = [](const std::vector<Tensor>& in) {
    Tensor y = native::unary(UnaryOp::Exp, in[0]);
    if (y.is_cpu()) return y;
    Tensor host = native::to(y, kCPU, kFloat32);
    float* v = host.data_ptr<float>();
    for (int64_t i = 0; i < host.numel(); ++i) v[i] = std::nextafter(v[i], INFINITY);
    return native::to(host, kSim, kFloat32);
  };
  Tensor on_device = exp_one_ulp_apart({native::to(x, kSim, kInt64)});
  REQUIRE_FALSE(native::equal(native::to(on_device, kCPU, kFloat32), exp_one_ulp_apart({x})));
  std::vector<DType> asked;
  auto tolerance = [&](DType result) {
    asked.push_back(result);
    return testing::elementwise_tolerance(result);
  };
  testing::require_same_behavior(exp_one_ulp_apart, {x}, tolerance, kSim);
  CHECK(asked == std::vector<DType>{kFloat32});
  // Integer results still match exactly: int64's tolerance is zero.
  Tolerance int64 = testing::elementwise_tolerance(kInt64);
  CHECK(int64.rtol == 0);
  CHECK(int64.atol == 0);
}

}  // namespace
}  // namespace brisk
