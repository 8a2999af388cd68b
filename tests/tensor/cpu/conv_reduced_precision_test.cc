// bfloat16/float16 conv2d, its gradients and pooling on the CPU (oneDNN, in bfloat16 on CPUs
// with AMX and in float32 with the operands converted in its reorders elsewhere; float32
// computation and rounding for float16) against float32 on the same rounded inputs: each
// result within a few units of its dtype's last place.
#include <catch2/catch.hpp>

#include <array>

#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

// The largest |a - b| relative to b's largest magnitude.
double relative_error(const Tensor& a, const Tensor& b) {
  Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
  return (a64 - b64).abs().max().item<double>() / b64.abs().max().item<double>();
}

TEST_CASE("conv2d in bfloat16 and float16 on the CPU matches float32 on the rounded inputs") {
  for (DType low : {kBFloat16, kFloat16}) {
    // bfloat16 keeps 8 bits, float16 11: a few units of the last place of the largest value.
    const double tolerance = low == kBFloat16 ? 2e-2 : 4e-3;
    for (int64_t channels : {3, 32}) {
      INFO(dtype_name(low) << ", " << channels << " channels");
      Conv2dParams p{{1, 1}, {1, 1}, {1, 1}, 1};
      Tensor x = randn({4, channels, 10, 10}).to(low), w = (randn({32, channels, 3, 3}) * 0.2).to(low);
      Tensor b = randn({32}).to(low);
      Tensor out = native::conv2d(x, w, b, p);
      Tensor expected = native::conv2d(x.to(kFloat32), w.to(kFloat32), b.to(kFloat32), p);
      REQUIRE(out.dtype() == low);
      CHECK(relative_error(out, expected) < tolerance);

      Tensor grad_out = randn(expected.sizes()).to(low);
      std::array<Tensor, 3> grads = native::conv2d_backward(grad_out, x, w, p, {true, true, true});
      std::array<Tensor, 3> reference =
          native::conv2d_backward(grad_out.to(kFloat32), x.to(kFloat32), w.to(kFloat32), p, {true, true, true});
      for (int i = 0; i < 3; ++i) {
        INFO("gradient " << i);
        REQUIRE(grads[i].dtype() == low);
        CHECK(relative_error(grads[i], reference[i]) < tolerance);
      }
    }
  }
}

TEST_CASE("pooling in bfloat16 and float16 on the CPU equals float32 on the rounded inputs, rounded") {
  for (DType low : {kBFloat16, kFloat16}) {
    INFO(dtype_name(low));
    Tensor x = randn({2, 3, 8, 8}).to(low);
    Pool2dParams p{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true, 0};
    auto [max_out, indices] = native::max_pool2d_with_indices(x, p);
    auto [max_ref, indices_ref] = native::max_pool2d_with_indices(x.to(kFloat32), p);
    CHECK(max_out.dtype() == low);
    CHECK(equal(max_out, max_ref.to(low)));
    CHECK(equal(indices, indices_ref));
    CHECK(equal(native::avg_pool2d(x, p), native::avg_pool2d(x.to(kFloat32), p).to(low)));
    CHECK(equal(native::adaptive_avg_pool2d(x, {1, 1}), native::adaptive_avg_pool2d(x.to(kFloat32), {1, 1}).to(low)));
  }
}

}  // namespace
}  // namespace brisk
