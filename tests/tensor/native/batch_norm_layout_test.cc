// native::batch_norm and batch_norm_backward on the CPU and the simulated device, for every
// float dtype, in training and eval: a channels_last input is normalized in its own layout
// (the output and grad_input are channels_last, no conversion) to the values of the
// contiguous one; and the fused relu/gelu equals the activation applied after the plain
// kernels to the last bit (forward) and its gradient fed to them up to the sums' roundings
// (backward).
#include <catch2/catch.hpp>

#include <array>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

Tensor channels_last(const Tensor& x) { return x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }

bool is_channels_last(const Tensor& t) {
  const int64_t c = t.size(1), h = t.size(2), w = t.size(3);
  return t.stride(0) == h * w * c && t.stride(1) == 1 && t.stride(2) == w * c && t.stride(3) == c;
}

// Tolerances of two summation orders, by dtype: a 16-bit result may round one step apart.
void check_close(const Tensor& got, const Tensor& want, DType dtype) {
  const double tol = dtype == kFloat64 ? 1e-12 : dtype == kFloat32 ? 2e-5 : dtype == kBFloat16 ? 2e-2 : 3e-3;
  INFO(got.describe() << " against " << want.describe());
  CHECK(allclose(got.to(kCPU, kFloat64), want.to(kCPU, kFloat64), tol, tol));
}

struct Inputs {
  Tensor x, weight, bias, mean, var, grad_out;
};

Inputs inputs(Device device, DType dtype) {
  const DType stats = dtype == kFloat64 ? kFloat64 : kFloat32;
  // [N, C, H, W] with C = 5 (not a multiple of a vector width) and 7 * 3 positions.
  return {(randn({3, 5, 7, 3}, kFloat64) * 2 + 0.5).to(device, dtype),
          randn({5}).to(device, stats),
          randn({5}).to(device, stats),
          randn({5}).to(device, stats),
          (rand({5}) + 0.5).to(device, stats),
          randn({3, 5, 7, 3}, kFloat64).to(device, dtype)};
}

TEST_CASE("batch_norm keeps a channels_last input's layout and gives the contiguous input's values") {
  for (Device device : {Device(kCPU), sim_device(0)}) {
    for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
      for (bool training : {true, false}) {
        for (FusedActivation activation : {FusedActivation::None, FusedActivation::Relu, FusedActivation::Gelu}) {
          INFO(device.str() << ", " << dtype_name(dtype) << (training ? ", training, " : ", eval, ")
                            << fused_activation_name(activation));
          Inputs in = inputs(device, dtype);
          Tensor mean_cl = in.mean.clone(), var_cl = in.var.clone();
          std::array<Tensor, 3> want =
              native::batch_norm(in.x, in.weight, in.bias, in.mean, in.var, training, 0.1, 1e-5, activation);
          Tensor x_cl = channels_last(in.x);
          REQUIRE(is_channels_last(x_cl));
          std::array<Tensor, 3> got =
              native::batch_norm(x_cl, in.weight, in.bias, mean_cl, var_cl, training, 0.1, 1e-5, activation);
          CHECK(is_channels_last(got[0]));
          check_close(got[0], want[0], dtype);
          check_close(got[1], want[1], dtype);
          check_close(got[2], want[2], dtype);
          check_close(mean_cl, in.mean, dtype);
          check_close(var_cl, in.var, dtype);

          std::array<Tensor, 3> want_grads =
              native::batch_norm_backward(in.grad_out, in.x, in.weight, in.bias, want[0], want[1], want[2], training,
                                          activation, {true, true, true});
          // The gradient arrives contiguous and is laid out like the input.
          std::array<Tensor, 3> got_grads = native::batch_norm_backward(
              in.grad_out, x_cl, in.weight, in.bias, got[0], got[1], got[2], training, activation, {true, true, true});
          CHECK(is_channels_last(got_grads[0]));
          for (int i = 0; i < 3; ++i) check_close(got_grads[i], want_grads[i], dtype);
        }
      }
    }
  }
}

// The activation's forward and backward ops, as relu(y) / gelu(y) and their gradients.
Tensor activate(const Tensor& y, FusedActivation activation) {
  return activation == FusedActivation::Relu ? relu(y) : gelu(y);
}

TEST_CASE("batch_norm's fused relu and gelu equal the activation after the plain kernels") {
  NoGradGuard no_grad;
  for (Device device : {Device(kCPU), sim_device(0)}) {
    for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
      for (bool nhwc : {false, true}) {
        for (bool training : {true, false}) {
          for (FusedActivation activation : {FusedActivation::Relu, FusedActivation::Gelu}) {
            INFO(device.str() << ", " << dtype_name(dtype) << (nhwc ? ", channels_last" : ", NCHW")
                              << (training ? ", training, " : ", eval, ") << fused_activation_name(activation));
            Inputs in = inputs(device, dtype);
            Tensor x = nhwc ? channels_last(in.x) : in.x;
            Tensor mean2 = in.mean.clone(), var2 = in.var.clone();
            std::array<Tensor, 3> plain =
                native::batch_norm(x, in.weight, in.bias, in.mean, in.var, training, 0.1, 1e-5);
            std::array<Tensor, 3> fused =
                native::batch_norm(x, in.weight, in.bias, mean2, var2, training, 0.1, 1e-5, activation);
            const Tensor z = plain[0];
            // The same rounded z through the same functor: equal to the last bit.
            CHECK(equal(fused[0], activate(z, activation)));
            CHECK(equal(fused[1], plain[1]));
            CHECK(equal(fused[2], plain[2]));

            const BinaryOp grad_op =
                activation == FusedActivation::Relu ? BinaryOp::ReluBackward : BinaryOp::GeluBackward;
            Tensor grad_z = native::binary(grad_op, in.grad_out, activation == FusedActivation::Relu ? fused[0] : z);
            std::array<Tensor, 3> want =
                native::batch_norm_backward(grad_z, x, in.weight, in.bias, Tensor(), plain[1], plain[2], training,
                                            FusedActivation::None, {true, true, true});
            std::array<Tensor, 3> got =
                native::batch_norm_backward(in.grad_out, x, in.weight, in.bias, fused[0], fused[1], fused[2], training,
                                            activation, {true, true, true});
            // The same terms, summed from another buffer (Eigen's vectorized sums start at its
            // alignment): equal up to the sums' roundings.
            for (int i = 0; i < 3; ++i) check_close(got[i], want[i], dtype);
          }
        }
      }
    }
  }
}

TEST_CASE("batch_norm_backward with a fused relu needs the forward's output") {
  Inputs in = inputs(kCPU, kFloat32);
  std::array<Tensor, 3> y =
      native::batch_norm(in.x, in.weight, in.bias, Tensor(), Tensor(), true, 0.1, 1e-5, FusedActivation::Relu);
  CHECK_THROWS_WITH(native::batch_norm_backward(in.grad_out, in.x, in.weight, in.bias, Tensor(), y[1], y[2], true,
                                                FusedActivation::Relu, {true, false, false}),
                    Catch::Contains("relu's gradient needs batch_norm's output"));
}

}  // namespace
}  // namespace brisk
