// The extension author's journey of issue 31, with the one include a program uses: a fused
// "scaled SiLU" (y = x * sigmoid(a x), learnable a) with hand-written CPU loops that read
// their tensors through data_ptr, registered as ops, made differentiable by a Function, and
// checked by gradcheck, on the CPU and on the simulated device.
#include <catch2/catch.hpp>
#include <cmath>

#include "brisk/brisk.h"

using namespace brisk;

namespace {

double sigmoid_of(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The kernels read and write dense memory: they take whatever the op hands them, as an
// author's first kernel would (the Function makes its inputs contiguous).
Tensor scaled_silu_cpu(const Tensor& x, const Tensor& a) {
  Tensor y = empty(x.sizes(), kFloat64);
  const double *px = x.data_ptr<double>(), alpha = a.data_ptr<double>()[0];
  double* py = y.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = px[i] * sigmoid_of(alpha * px[i]);
  return y;
}

// d/dx = s + a x s (1 - s), d/da = x^2 s (1 - s), with s = sigmoid(a x).
std::tuple<Tensor, Tensor> scaled_silu_backward_cpu(const Tensor& grad, const Tensor& x, const Tensor& a) {
  Tensor grad_x = empty(x.sizes(), kFloat64);
  const double *pg = grad.data_ptr<double>(), *px = x.data_ptr<double>(), alpha = a.data_ptr<double>()[0];
  double* pgx = grad_x.data_ptr<double>();
  double grad_a = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double s = sigmoid_of(alpha * px[i]), ds = s * (1 - s);
    pgx[i] = pg[i] * (s + alpha * px[i] * ds);
    grad_a += pg[i] * px[i] * px[i] * ds;
  }
  return {grad_x, full({1}, grad_a, kFloat64)};
}

}  // namespace

BRISK_LIBRARY(myext, m) {
  m.def("scaled_silu(Tensor x, Tensor a) -> Tensor");
  m.def("scaled_silu_backward(Tensor grad, Tensor x, Tensor a) -> (Tensor, Tensor)");
  m.def("square(Tensor x) -> Tensor");  // a CPU kernel only
}

BRISK_LIBRARY_IMPL(myext, CPU, m) {
  m.impl("scaled_silu", &scaled_silu_cpu);
  m.impl("scaled_silu_backward", &scaled_silu_backward_cpu);
  m.impl("square", +[](const Tensor& x) { return x * x; });
}

BRISK_LIBRARY_IMPL(myext, Sim, m) {
  m.impl("scaled_silu", library::sim_kernel_from_cpu(&scaled_silu_cpu));
  m.impl("scaled_silu_backward", library::sim_kernel_from_cpu(&scaled_silu_backward_cpu));
}

struct ScaledSiLU : autograd::Function<ScaledSiLU> {
  static constexpr bool once_differentiable = true;  // its backward is a kernel

  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& a) {
    static const auto op = library::find_op<Tensor(const Tensor&, const Tensor&)>("myext::scaled_silu");
    Tensor dense = x.contiguous();
    ctx->save_for_backward({dense, a});
    return op(dense, a);
  }
  // Reads grad_outputs[0] through data_ptr in the kernel, with no .contiguous() of its own.
  static autograd::TensorList backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs) {
    static const auto op = library::find_op<std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&)>(
        "myext::scaled_silu_backward");
    auto saved = ctx->get_saved_variables();
    auto [grad_x, grad_a] = op(grad_outputs[0], saved[0], saved[1]);
    return {grad_x, grad_a};
  }
};

namespace {

Tensor composite(const Tensor& x, const Tensor& a) { return x * sigmoid(a * x); }

double max_difference(const Tensor& p, const Tensor& q) {
  return (p.to(Device("cpu")) - q.to(Device("cpu"))).abs().max().item<double>();
}

}  // namespace

TEST_CASE("a Function whose backward kernel reads grad_outputs through data_ptr gets y.sum()'s gradient") {
  manual_seed(3);
  Tensor x = randn({4, 5}, kFloat64).requires_grad_(true);
  Tensor a = full({1}, 0.7, kFloat64).requires_grad_(true);
  ScaledSiLU::apply(x, a).sum().backward();  // the incoming gradient is expanded (stride 0)

  Tensor x_ref = x.detach().clone().requires_grad_(true), a_ref = a.detach().clone().requires_grad_(true);
  composite(x_ref, a_ref).sum().backward();
  CHECK(max_difference(x.grad(), x_ref.grad()) < 1e-12);
  CHECK(max_difference(a.grad(), a_ref.grad()) < 1e-12);
}

TEST_CASE("gradcheck passes the scaled SiLU, non-contiguous incoming gradients and inputs included") {
  manual_seed(4);
  Tensor x = randn({3, 4}, kFloat64).requires_grad_(true);
  Tensor a = full({1}, -1.3, kFloat64).requires_grad_(true);
  const bool passed = autograd::gradcheck([](const std::vector<Tensor>& in) { return ScaledSiLU::apply(in[0], in[1]); }, {x, a});
  CHECK(passed);
}

TEST_CASE("the scaled SiLU runs on the simulated device and equals the CPU") {
  manual_seed(5);
  const Device sim("sim:2");
  Tensor x_cpu = randn({2, 3, 4}, kFloat64);
  Tensor x = x_cpu.to(sim).requires_grad_(true);
  Tensor a = full({1}, 1.1, kFloat64).to(sim).requires_grad_(true);
  Tensor y = ScaledSiLU::apply(x, a);
  CHECK(y.device() == sim);
  (y * y).sum().backward();
  CHECK(x.grad().device() == sim);
  CHECK(a.grad().device() == sim);

  Tensor x_ref = x_cpu.clone().requires_grad_(true), a_ref = full({1}, 1.1, kFloat64).requires_grad_(true);
  Tensor y_ref = composite(x_ref, a_ref);
  (y_ref * y_ref).sum().backward();
  CHECK(max_difference(y, y_ref) < 1e-12);
  CHECK(max_difference(x.grad(), x_ref.grad()) < 1e-12);
  CHECK(max_difference(a.grad(), a_ref.grad()) < 1e-12);
}

TEST_CASE("the op on a device without a kernel names the op, the device and the devices that have one") {
  // scaled_silu_backward has kernels for the CPU and the simulated device: none for CUDA.
  auto backward_op = library::find_op<std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&)>(
      "myext::scaled_silu_backward");
  Tensor g = ones({2}, kFloat64);
  CHECK_NOTHROW(backward_op(g, g, ones({1}, kFloat64)));
  // An op of this file with a CPU kernel only, called on the simulated device.
  auto square = library::find_op<Tensor(const Tensor&)>("myext::square");
  Tensor on_sim = ones({2}, kFloat64).to(Device("sim:0"));
  REQUIRE_THROWS_WITH(square(on_sim), "myext::square: no kernel for device sim:0 (kernels: CPU)");
}

TEST_CASE("a gradient of the once-differentiable Function's gradient is an error naming it") {
  Tensor x = randn({3}, kFloat64).requires_grad_(true);
  Tensor a = full({1}, 0.5, kFloat64).requires_grad_(true);
  Tensor grad_x = autograd::grad({ScaledSiLU::apply(x, a).sum()}, {x}, {}, /*retain_graph=*/true,
                                 /*create_graph=*/true)[0];
  REQUIRE_THROWS_WITH(grad_x.sum().backward(), Catch::Contains("ScaledSiLU"));
}
