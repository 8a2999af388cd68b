// Runs Brisk's example extension, built against an installed Brisk
// (examples/extension_project/CMakeLists.txt: brisk_add_extension), on each device named on
// the command line (cpu, sim:2, cuda:0): its values and gradients, through its autograd
// Function and through its registered op called by name, against the same math written with
// Brisk's ops on the CPU. Exits non-zero if one is off: CI runs it (tools/test_examples.sh).
#include <cmath>
#include <cstdio>

#include "brisk/brisk.h"
#include "examples/extending/fused_bias_leaky_relu.h"

using namespace brisk;

constexpr double kSlope = 0.2;
const double kScale = std::sqrt(2.0);

Tensor reference(const Tensor& x, const Tensor& bias) {
  Tensor v = x + bias.view({1, bias.size(0), 1});
  return where(v > zeros_like(v), v, v * kSlope) * kScale;
}

bool check(Device device) {
  Generator gen(7);
  Tensor x = randn({4, 3, 5}, kFloat32, &gen);
  Tensor bias = randn({3}, kFloat32, &gen);
  Tensor grad = randn({4, 3, 5}, kFloat32, &gen);
  Tensor x_ref = x.clone().requires_grad_(), bias_ref = bias.clone().requires_grad_();
  Tensor y_ref = reference(x_ref, bias_ref);
  y_ref.backward(grad);

  Tensor xd = x.to(device).detach().requires_grad_(), bias_d = bias.to(device).detach().requires_grad_();
  Tensor y = examples::fused_bias_leaky_relu(xd, bias_d, kSlope, kScale);
  y.backward(grad.to(device));
  static const auto op =
      library::find_op<Tensor(const Tensor&, const Tensor&, double, double)>("examples::fused_bias_leaky_relu");
  Tensor by_name = op(x.to(device), bias.to(device), kSlope, kScale);

  const bool on_device = y.device() == device && xd.grad().device() == device && by_name.device() == device;
  const bool values = allclose(y.cpu(), y_ref.detach()) && allclose(by_name.cpu(), y_ref.detach());
  const bool grads =
      allclose(xd.grad().cpu(), x_ref.grad()) && allclose(bias_d.grad().cpu(), bias_ref.grad(), 1e-5, 1e-6);
  std::printf("%s: results on the device %s, values %s, gradients %s\n", device.str().c_str(), on_device ? "yes" : "NO",
              values ? "right" : "WRONG", grads ? "right" : "WRONG");
  return on_device && values && grads;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DEVICE... (cpu, sim:2, cuda:0)\n", argv[0]);
    return 2;
  }
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = check(Device(argv[i])) && ok;
  return ok ? 0 : 1;
}
