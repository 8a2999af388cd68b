// batch_norm of bfloat16/float16 data with float32 statistics and affine parameters (the
// mixed-dtype kernels autocast reaches) on the CPU and the simulated device: the same float32
// arithmetic as the float32 kernels on the widened data, each 16-bit result that one rounded.
#include <catch2/catch.hpp>

#include <array>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

TEST_CASE("mixed-dtype batch_norm equals the float32 kernels on the widened data, rounded") {
  for (Device device : {Device(kCPU), sim_device(0)}) {
    for (DType low : {kBFloat16, kFloat16}) {
      for (bool training : {true, false}) {
        INFO(device.str() << ", " << dtype_name(low) << (training ? ", training" : ", eval"));
        Tensor x = (randn({4, 3, 5, 6}) * 3 + 1).to(device, low);
        Tensor weight = randn({3}).to(device), bias = randn({3}).to(device);
        Tensor mean = randn({3}).to(device), var = (rand({3}) + 0.5).to(device);
        Tensor mean32 = mean.clone(), var32 = var.clone();

        std::array<Tensor, 3> low_out = native::batch_norm(x, weight, bias, mean, var, training, 0.1, 1e-5);
        std::array<Tensor, 3> ref =
            native::batch_norm(x.to(kFloat32), weight, bias, mean32, var32, training, 0.1, 1e-5);
        REQUIRE(low_out[0].dtype() == low);
        REQUIRE(low_out[1].dtype() == kFloat32);
        CHECK(equal(low_out[0], ref[0].to(low)));
        CHECK(equal(low_out[1], ref[1]));
        CHECK(equal(low_out[2], ref[2]));
        CHECK(equal(mean, mean32));
        CHECK(equal(var, var32));

        Tensor grad_out = randn(x.sizes()).to(device, low);
        std::array<Tensor, 3> grads =
            native::batch_norm_backward(grad_out, x, weight, bias, Tensor(), low_out[1], low_out[2], training,
                                        FusedActivation::None, {true, true, true});
        std::array<Tensor, 3> ref_grads =
            native::batch_norm_backward(grad_out.to(kFloat32), x.to(kFloat32), weight, bias, Tensor(), ref[1], ref[2],
                                        training, FusedActivation::None, {true, true, true});
        REQUIRE(grads[0].dtype() == low);
        REQUIRE(grads[1].dtype() == kFloat32);
        CHECK(equal(grads[0], ref_grads[0].to(low)));
        CHECK(equal(grads[1], ref_grads[1]));
        CHECK(equal(grads[2], ref_grads[2]));
      }
    }
  }
}

TEST_CASE("batch_norm of a bfloat16 input gives float32 parameters float32 gradients") {
  Tensor x = randn({8, 4, 3, 3}).to(kBFloat16).requires_grad_();
  Tensor weight = randn({4}).requires_grad_(), bias = randn({4}).requires_grad_();
  Tensor running_mean = zeros({4}), running_var = ones({4});
  Tensor y = nn::functional::batch_norm(x, running_mean, running_var, weight, bias, /*training=*/true);
  REQUIRE(y.dtype() == kBFloat16);
  (y.to(kFloat32) * y.to(kFloat32)).sum().backward();
  CHECK(x.grad().dtype() == kBFloat16);
  CHECK(weight.grad().dtype() == kFloat32);
  CHECK(bias.grad().dtype() == kFloat32);
  CHECK(running_mean.abs().sum().item<double>() > 0);
}

}  // namespace
}  // namespace brisk
