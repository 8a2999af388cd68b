// The CPU fallback of the custom-kernel example against the same math written with ops.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "examples/extending/fused_bias_leaky_relu.h"

namespace brisk::examples {
namespace {

Tensor reference(const Tensor& x, const Tensor& bias, double slope, double scale) {
  Tensor v = x + bias.view({1, bias.size(0), 1, 1});
  return where(v > zeros_like(v), v, v * slope) * scale;
}

TEST_CASE("fused_bias_leaky_relu on the CPU matches the composite form, gradients included") {
  Generator gen(3);
  Tensor x = randn({2, 3, 4, 5}, kFloat64, &gen).requires_grad_();
  Tensor bias = randn({3}, kFloat64, &gen).requires_grad_();
  Tensor y = fused_bias_leaky_relu(x, bias, 0.2, std::sqrt(2.0));
  CHECK(allclose(y, reference(x, bias, 0.2, std::sqrt(2.0))));
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& in) { return fused_bias_leaky_relu(in[0], in[1], 0.1, 1.5); },
                            {x, bias}));
}

TEST_CASE("the FusedBiasLeakyReLU module learns its bias") {
  FusedBiasLeakyReLU act(3);
  Tensor x = randn({2, 3, 2, 2});
  CHECK(allclose(act(x), reference(x, zeros({3}), 0.2, std::sqrt(2.0))));
  act(x).sum().backward();
  CHECK(act->bias.grad().sizes() == Shape{3});
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x, zeros({4})),
                    Catch::Matchers::Contains("expected x [N, C, ...] and bias [C]"));
}

TEST_CASE("fused_bias_leaky_relu refuses a device it has no kernel for instead of reading its memory") {
  // The simulated device's memory faults when the host reads it, as CUDA memory does.
  Tensor x = randn({2, 3, 2, 2}).to(sim_device(0)), bias = zeros({3}).to(sim_device(0));
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x, bias),
                    Catch::Matchers::Contains("no kernel for [2, 3, 2, 2] float32 sim:0"));
}

}  // namespace
}  // namespace brisk::examples
