// channels_last inputs through the convolution, pooling and batch-norm ops: the same values
// and gradients as contiguous inputs (float32 through oneDNN's NHWC kernels, float64 through
// the im2col kernels), float64 gradcheck with channels_last inputs and weights, and
// nn::Module::to(MemoryFormat). The twin runs it on the simulated device.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "tests/test_device.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using autograd::gradcheck;
using TensorList = std::vector<Tensor>;
using test::max_abs_diff;

constexpr MemoryFormat kCL = MemoryFormat::ChannelsLast;

// A leaf of `dtype` on the test device, randn-filled from a fixed seed.
Tensor leaf(const Shape& shape, DType dtype, uint64_t seed) {
  Generator g(seed);
  return test::on_test_device(randn(shape, kFloat64, &g).to(dtype)).detach().requires_grad_();
}

// The output and the gradients of every input of f(inputs).sum() weighted by a fixed pattern.
TensorList output_and_grads(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs) {
  Tensor out = f(inputs);
  Tensor weights = test::on_test_device(arange(out.numel()).to(out.dtype()).reshape(out.sizes())).remainder(7) - 3;
  (out * weights).sum().backward();
  TensorList all{out};
  for (const Tensor& t : inputs) all.push_back(t.grad());
  return all;
}

// f over channels_last copies of the 4-D inputs against f over the inputs: equal within `tol`,
// the output and the 4-D inputs' gradients channels_last.
void require_layout_free(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs, double tol) {
  TensorList cl;
  for (const Tensor& t : inputs) {
    cl.push_back(t.dim() == 4 ? t.detach().contiguous(kCL).requires_grad_() : t.detach().clone().requires_grad_());
  }
  TensorList expected = output_and_grads(f, inputs), got = output_and_grads(f, cl);
  REQUIRE(got[0].is_contiguous(kCL));
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("result " << i << " (0: the output, then each input's gradient)");
    CHECK(max_abs_diff(got[i], expected[i]) <= tol);
    if (i > 0 && inputs[i - 1].dim() == 4) CHECK(got[i].is_contiguous(kCL));
  }
}

TEST_CASE("channels_last: conv2d forward and gradients equal the contiguous ones") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(dtype_name(dtype));
    const double tol = dtype == kFloat32 ? 1e-4 : 1e-12;
    require_layout_free([](const TensorList& in) { return F::conv2d(in[0], in[1], in[2], 1, 1); },
                        {leaf({2, 8, 9, 7}, dtype, 1), leaf({16, 8, 3, 3}, dtype, 2), leaf({16}, dtype, 3)}, tol);
    require_layout_free([](const TensorList& in) { return F::conv2d(in[0], in[1], Tensor(), 2, 0); },
                        {leaf({3, 16, 8, 8}, dtype, 4), leaf({32, 16, 1, 1}, dtype, 5)}, tol);
    require_layout_free([](const TensorList& in) { return F::conv2d(in[0], in[1], Tensor(), 1, 1, 1, 4); },
                        {leaf({2, 8, 6, 6}, dtype, 6), leaf({8, 2, 3, 3}, dtype, 7)}, tol);
  }
}

TEST_CASE("channels_last: pooling keeps the layout and gives the contiguous values bit for bit") {
  // The pooling kernels run on channels_last memory itself (no conversion): the same
  // arithmetic per element, in the same order, so the results are exact.
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    INFO(dtype_name(dtype));
    require_layout_free([](const TensorList& in) { return F::max_pool2d(in[0], 2); }, {leaf({2, 5, 8, 6}, dtype, 8)},
                        0.0);
    require_layout_free([](const TensorList& in) { return F::max_pool2d(in[0], 3, 2, 1, 1, /*ceil_mode=*/true); },
                        {leaf({2, 3, 7, 5}, dtype, 14)}, 0.0);
    require_layout_free([](const TensorList& in) { return F::max_pool2d(in[0], {2, 3}, Size2{1, 2}, {0, 1}, 2); },
                        {leaf({2, 4, 7, 9}, dtype, 15)}, 0.0);
    require_layout_free([](const TensorList& in) { return F::avg_pool2d(in[0], 3, 2, 1); },
                        {leaf({2, 5, 9, 7}, dtype, 9)}, 0.0);
    require_layout_free(
        [](const TensorList& in) {
          return F::avg_pool2d(in[0], 3, 2, 1, /*ceil_mode=*/true, /*count_include_pad=*/false);
        },
        {leaf({2, 6, 8, 7}, dtype, 16)}, 0.0);
    require_layout_free([](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {3, 2}); },
                        {leaf({2, 5, 7, 6}, dtype, 10)}, 0.0);
    require_layout_free([](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {1, 1}); },
                        {leaf({3, 7, 4, 4}, dtype, 17)}, 0.0);
    require_layout_free([](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {5, 9}); },
                        {leaf({2, 4, 3, 4}, dtype, 18)}, 0.0);
  }
}

TEST_CASE("channels_last: batch norm keeps the layout and the values") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(dtype_name(dtype));
    const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
    require_layout_free(
        [](const TensorList& in) { return F::batch_norm(in[0], Tensor(), Tensor(), in[1], in[2], true); },
        {leaf({4, 6, 5, 3}, dtype, 11), leaf({6}, dtype, 12), leaf({6}, dtype, 13)}, tol);
  }
}

TEST_CASE("channels_last: float64 gradcheck of conv2d and the pools") {
  auto cl_leaf = [](const Shape& shape, uint64_t seed) {
    return leaf(shape, kFloat64, seed).detach().contiguous(kCL).requires_grad_();
  };
  Tensor x = cl_leaf({2, 3, 5, 4}, 20), w = cl_leaf({4, 3, 3, 3}, 21), b = leaf({4}, kFloat64, 22);
  REQUIRE(x.is_contiguous(kCL));
  CHECK(gradcheck([](const TensorList& in) { return F::conv2d(in[0], in[1], in[2], 1, 1); }, {x, w, b}));
  CHECK(gradcheck([](const TensorList& in) { return F::conv2d(in[0], in[1], Tensor(), 2, 1); }, {x, w}));
  // A contiguous input with a channels_last weight runs channels_last too (PyTorch's rule).
  Tensor plain = leaf({2, 3, 5, 4}, kFloat64, 23);
  CHECK(gradcheck([](const TensorList& in) { return F::conv2d(in[0], in[1], Tensor(), 1, 0); }, {plain, w}));
  Tensor p = cl_leaf({2, 3, 6, 5}, 24);
  CHECK(gradcheck([](const TensorList& in) { return F::max_pool2d(in[0], 2); }, {p}));
  CHECK(gradcheck([](const TensorList& in) { return F::avg_pool2d(in[0], 3, 2, 1); }, {p}));
  CHECK(gradcheck([](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {2, 3}); }, {p}));
}

TEST_CASE("channels_last: Module::to(MemoryFormat) converts 4-D parameters and buffers in place") {
  Conv2d conv(Conv2dOptions(3, 8, 3).padding(1));
  Sequential model(conv, BatchNorm2d(8), Linear(4, 2));
  model->to(test::test_device());
  Tensor weight = model->parameters()[0];
  model->to(kCL);
  // The same tensor (optimizers hold it), now channels_last; 1-D and 2-D tensors are untouched.
  CHECK(model->parameters()[0].is_same(weight));
  CHECK(weight.is_contiguous(kCL));
  CHECK_FALSE(weight.is_contiguous());
  for (const Tensor& t : model->parameters()) {
    if (t.dim() != 4) CHECK(t.is_contiguous());
  }
  // The gradient of a channels_last weight is channels_last (AccumulateGrad's layout contract).
  Tensor x = test::on_test_device(randn({2, 3, 6, 6})).contiguous(kCL);
  conv->forward(x).sum().backward();
  CHECK(weight.grad().is_contiguous(kCL));
  model->to(MemoryFormat::Contiguous);
  CHECK(weight.is_contiguous());
  CHECK(weight.grad().is_contiguous());
}

}  // namespace
}  // namespace brisk::nn
