// The CUDA kernels of the custom-kernel example's ops against their CPU kernels.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "examples/extending/fused_bias_leaky_relu.h"

namespace brisk::examples {
namespace {

TEST_CASE("fused_bias_leaky_relu on CUDA runs its CUDA kernels: the CPU's values and gradients, on the GPU") {
  Tensor x = randn({8, 16, 7, 5}).requires_grad_();
  Tensor bias = randn({16}).requires_grad_();
  Tensor y = fused_bias_leaky_relu(x, bias);
  y.backward(ones_like(y));

  Tensor xc = x.detach().cuda().requires_grad_(), bc = bias.detach().cuda().requires_grad_();
  Tensor yc = fused_bias_leaky_relu(xc, bc);
  CHECK(yc.is_cuda());
  yc.backward(ones_like(yc));
  CHECK(allclose(yc.cpu(), y.detach(), 1e-5, 1e-6));
  CHECK(xc.grad().is_cuda());
  CHECK(allclose(xc.grad().cpu(), x.grad(), 1e-5, 1e-6));
  CHECK(allclose(bc.grad().cpu(), bias.grad(), 1e-4, 1e-5));
}

}  // namespace
}  // namespace brisk::examples
