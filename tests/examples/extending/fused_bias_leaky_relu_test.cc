// The custom-kernel example: its CPU kernels against the same math written with ops, its
// device path on the simulated device sim:2, the errors of its ops, and its profiler events.
#include "examples/extending/fused_bias_leaky_relu.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "library/library.h"
#include "profiler/profiler.h"

namespace brisk::examples {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

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
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x, zeros({4})), Contains("expected x [N, C, ...] and bias [C]"));
}

TEST_CASE("on sim:2 the op runs its device kernels: the CPU's values and gradients, on sim:2") {
  const Device sim2 = sim_device(2);
  Generator gen(5);
  Tensor x = randn({2, 3, 4, 5}, kFloat32, &gen).requires_grad_();
  Tensor bias = randn({3}, kFloat32, &gen).requires_grad_();
  fused_bias_leaky_relu(x, bias).sum().backward();

  Tensor xs = x.detach().to(sim2).requires_grad_(), bs = bias.detach().to(sim2).requires_grad_();
  Tensor ys = fused_bias_leaky_relu(xs, bs);
  CHECK(ys.device() == sim2);
  CHECK(allclose(ys.cpu(), fused_bias_leaky_relu(x, bias).detach()));
  ys.sum().backward();
  REQUIRE(xs.grad().defined());
  CHECK(xs.grad().device() == sim2);
  CHECK(bs.grad().device() == sim2);
  CHECK(allclose(xs.grad().cpu(), x.grad()));
  CHECK(allclose(bs.grad().cpu(), bias.grad(), 1e-5, 1e-6));

  FusedBiasLeakyReLU act(3);
  act->to(sim2);
  CHECK(act(xs.detach()).device() == sim2);
}

TEST_CASE("the op's inputs are checked once for every device: one device, one dtype") {
  Tensor x = randn({2, 3, 2, 2});
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x, zeros({3}, kFloat64)),
                    Equals("examples::fused_bias_leaky_relu: floating-point arguments x ([2, 3, 2, 2] float32 cpu) "
                           "and bias ([3] float64 cpu) differ in dtype"));
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x, zeros({3}).to(sim_device(0))),
                    Equals("examples::fused_bias_leaky_relu: arguments x ([2, 3, 2, 2] float32 cpu) and bias ([3] "
                           "float32 sim:0) are on different devices"));
  CHECK_THROWS_WITH(fused_bias_leaky_relu(x.to(kInt64), zeros({3}, kInt64)), Contains("fused_bias_leaky_relu"));
}

// A CPU-only extension, as a project without CUDA kernels writes it: a call on a device with
// no kernel is an error naming the op, the device and the kernels (where a hand-written
// `if (x.is_cuda())` used to read device memory from the host and crash).
Tensor scale_cpu(const Tensor& x, double s) { return x * s; }

}  // namespace
}  // namespace brisk::examples

BRISK_LIBRARY(cpu_only_extension, m) { m.def("scale(Tensor x, float s) -> Tensor"); }
BRISK_LIBRARY_IMPL(cpu_only_extension, CPU, m) { m.impl("scale", &brisk::examples::scale_cpu); }

namespace brisk::examples {
namespace {

TEST_CASE("an op without a kernel for the device refuses the call instead of crashing") {
  auto scale = library::find_op<Tensor(const Tensor&, double)>("cpu_only_extension::scale");
  CHECK(equal(scale(ones({2}), 3.0), full({2}, 3.0)));
  CHECK_THROWS_WITH(scale(ones({2}).to(sim_device(0)), 3.0),
                    Equals("cpu_only_extension::scale: no kernel for device sim:0 (kernels: CPU)"));
}

TEST_CASE("the profiler shows the op's forward and backward under their names") {
  Tensor x = randn({2, 3, 2, 2}).requires_grad_(), bias = zeros({3}).requires_grad_();
  profiler::Profiler prof;
  prof.start();
  fused_bias_leaky_relu(x, bias).sum().backward();
  prof.stop();
  const profiler::Event* forward = nullptr;
  const profiler::Event* backward = nullptr;
  for (const profiler::Event& e : prof.events()) {
    if (e.name == "examples::fused_bias_leaky_relu") forward = &e;
    if (e.name == "examples::fused_bias_leaky_relu_backward") backward = &e;
  }
  REQUIRE(forward != nullptr);
  REQUIRE(backward != nullptr);
  CHECK(forward->category == profiler::Category::Op);
  profiler::Args expected{{"Input Dims", "[[2, 3, 2, 2], [3]]"}, {"Input type", "float32, float32"}, {"device", "cpu"}};
  CHECK(forward->args == expected);
}

}  // namespace
}  // namespace brisk::examples
