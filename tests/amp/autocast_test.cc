// brisk::autocast's behaviour beyond the policy table: gradients, scopes, devices, backward.
#include <catch2/catch.hpp>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk {
namespace {

namespace F = nn::functional;

TEST_CASE("autocast: a float32 leaf gets a float32 gradient through a bfloat16 matmul") {
  Tensor w = randn({4, 3}).requires_grad_(true);
  Tensor x = randn({5, 4});
  Tensor out;
  {
    autocast guard(kCPU, kBFloat16);
    out = matmul(x, w);
  }
  CHECK(out.dtype() == kBFloat16);
  out.to(kFloat32).sum().backward();
  REQUIRE(w.grad().defined());
  CHECK(w.grad().dtype() == kFloat32);
  // d sum(x @ w) / dw = x^T @ ones, up to bfloat16 rounding of x.
  Tensor expected = matmul(x.t(), ones({5, 3}));
  CHECK(allclose(w.grad(), expected, 2e-2, 2e-2));
}

TEST_CASE("autocast: scopes nest, enabled = false turns it off inside, and leaving restores the state") {
  Tensor a = randn({2, 3}), b = randn({3, 2});
  CHECK_FALSE(is_autocast_enabled(DeviceType::CPU));
  {
    autocast outer(kCPU, kFloat16);
    CHECK(is_autocast_enabled(DeviceType::CPU));
    CHECK(get_autocast_dtype(DeviceType::CPU) == kFloat16);
    CHECK(matmul(a, b).dtype() == kFloat16);
    {
      autocast inner(kCPU, std::nullopt, /*enabled=*/false);
      CHECK(matmul(a, b).dtype() == kFloat32);
    }
    {
      autocast inner(kCPU, kBFloat16);
      CHECK(matmul(a, b).dtype() == kBFloat16);
    }
    CHECK(matmul(a, b).dtype() == kFloat16);
  }
  CHECK_FALSE(is_autocast_enabled(DeviceType::CPU));
  CHECK(get_autocast_dtype(DeviceType::CPU) == kBFloat16);
  CHECK(matmul(a, b).dtype() == kFloat32);
}

TEST_CASE("autocast: an op of the table runs its inner ops as it decided, and the state is back after it") {
  Tensor x = randn({4, 3}), w = randn({2, 3}), bias = randn({2});
  autocast guard(kCPU, kBFloat16);
  // linear casts once and calls addmm, which must not cast again.
  CHECK(F::linear(x, w, bias).dtype() == kBFloat16);
  // cross_entropy runs in float32 and calls log_softmax and nll_loss inside.
  Tensor logits = matmul(x, w.t());
  CHECK(logits.dtype() == kBFloat16);
  CHECK(F::cross_entropy(logits, tensor<int64_t>({0, 1, 1, 0}, {4})).dtype() == kFloat32);
  CHECK(is_autocast_enabled(DeviceType::CPU));
}

TEST_CASE("autocast for one device type leaves tensors of the others alone") {
  Tensor a = randn({2, 3}), b = randn({3, 2});
  autocast guard("cuda", kFloat16);
  CHECK(matmul(a, b).dtype() == kFloat32);
  CHECK_FALSE(is_autocast_enabled(DeviceType::CPU));
}

TEST_CASE("autocast follows CUDA's table on the simulated device") {
  Device sim = sim_device(0);
  Tensor a = randn({2, 3}).to(sim), b = randn({3, 2}).to(sim);
  autocast guard(sim, kFloat16);
  Tensor product = matmul(a, b);
  CHECK(product.dtype() == kFloat16);
  CHECK(product.device() == sim);
  // CUDA runs these in float32 where the CPU keeps the input's dtype.
  CHECK(softmax(product, 1).dtype() == kFloat32);
  CHECK(exp(product).dtype() == kFloat32);
  CHECK(sum(product).dtype() == kFloat32);
  CHECK(F::layer_norm(product, {2}).dtype() == kFloat32);
  // Promote: the widest input.
  Tensor half = randn({3}).to(sim).to(kFloat16);
  CHECK(addcmul(half, half, half).dtype() == kFloat16);
  CHECK(addcmul(half, randn({3}).to(sim), half).dtype() == kFloat32);
  // Ops outside the table keep their inputs' dtype.
  CHECK(relu(product).dtype() == kFloat16);
}

TEST_CASE("backward runs with autocast off") {
  Tensor x = randn({3}).requires_grad_(true);
  bool seen_on = true;
  autocast guard(kCPU, kBFloat16);
  Tensor y = x * 2.0;
  y.register_hook([&](const Tensor& grad) {
    seen_on = is_autocast_enabled(DeviceType::CPU);
    return grad;
  });
  y.sum().backward();
  CHECK_FALSE(seen_on);
  CHECK(is_autocast_enabled(DeviceType::CPU));
}

TEST_CASE("autocast refuses a dtype that is not a lower precision") {
  CHECK_THROWS_WITH(autocast(kCPU, kFloat64),
                    Catch::Contains("float64") && Catch::Contains("cpu") && Catch::Contains("bfloat16 or float16"));
}

}  // namespace
}  // namespace brisk
