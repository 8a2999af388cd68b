// nn::Linear's backward hands the weight a gradient in the weight's own layout, so
// AccumulateGrad keeps it as .grad without a copy: kernels of one forward and backward on
// sim:0, counted exactly, with and without bias, on 2-D and 3-D inputs.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/modules/linear.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_graph.h"

using namespace brisk;

namespace {

const Device sim0 = sim_device(0);

// The kernels of layer(x).sum().backward() on sim:0 into no gradients yet (x a leaf, so its
// gradient is computed too).
uint64_t kernels_of_step(nn::Linear& layer, const Shape& input) {
  layer->zero_grad();
  Tensor x = randn(input).to(sim0).requires_grad_();
  sim::reset_kernel_counts();
  layer(x).sum().backward();
  return sim::kernel_counts().run;
}

}  // namespace

TEST_CASE("nn::Linear's forward and backward on sim copy no gradient") {
  nn::Linear with_bias(5, 4);
  with_bias->to(sim0);
  // forward: the GEMM and the bias (copied in first for a 2-D input, added after otherwise);
  // sum; backward: sum's gradient (one fill), grad_input, grad_weight, grad_bias. Was 8: the
  // weight's transposed gradient copied.
  CHECK(kernels_of_step(with_bias, {3, 5}) == 7);
  CHECK(with_bias->weight.grad().is_contiguous());
  CHECK(kernels_of_step(with_bias, {2, 3, 5}) == 7);

  nn::Linear no_bias(nn::LinearOptions(5, 4).bias(false));
  no_bias->to(sim0);
  // forward: the GEMM; sum; backward: the fill, grad_input, grad_weight. Was 6.
  CHECK(kernels_of_step(no_bias, {2, 3, 5}) == 5);
  CHECK(no_bias->weight.grad().is_contiguous());
}
