// Convolution and pooling beyond the PyTorch fixtures: argument errors (naming the shapes
// and the geometry), the threaded batch path against per-image results, dropout, and the
// backend defaults that devices without these kernels fall back on.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/nn.h"
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using Catch::Matchers::Contains;

TEST_CASE("conv2d errors name the shapes and the geometry") {
  Tensor x = zeros({64, 3, 28, 28});
  CHECK_THROWS_WITH(F::conv2d(x, zeros({16, 6, 5, 5})),
                    Contains("input [64, 3, 28, 28] should have 6 channels (weight [16, 6, 5, 5] with groups 1), "
                             "but got 3 channels"));
  CHECK_THROWS_WITH(F::conv2d(zeros({28, 28}), zeros({16, 1, 5, 5})), Contains("got input [28, 28] float32 cpu"));
  CHECK_THROWS_WITH(F::conv2d(x, zeros({16, 3, 5, 5}), zeros({10})), Contains("bias [10] should have shape [16]"));
  CHECK_THROWS_WITH(F::conv2d(x, zeros({16, 1, 5, 5}), Tensor(), 1, 0, 1, 2),
                    Contains("input [64, 3, 28, 28] should have 2 channels"));
  CHECK_THROWS_WITH(F::conv2d(x, zeros({5, 1, 5, 5}), Tensor(), 1, 0, 1, 3),
                    Contains("groups 3 must be positive and divide the 5 output channels"));
  CHECK_THROWS_WITH(F::conv2d(zeros({1, 1, 3, 3}), zeros({1, 1, 5, 5})),
                    Contains("kernel [5, 5] with dilation [1, 1] does not fit input [1, 1, 3, 3] padded by [0, 0]"));
  CHECK_THROWS_WITH(F::conv2d(x, zeros({16, 3, 5, 5}), Tensor(), 0), Contains("stride [0, 0]"));
  CHECK_THROWS_WITH(F::conv2d(x, zeros({16, 3, 5, 5}, kFloat64)), Contains("must have the same dtype"));
  CHECK_THROWS_WITH(F::conv2d(zeros({1, 1, 4, 4}, kInt64), zeros({1, 1, 2, 2}, kInt64)),
                    Contains("expected a floating point input"));
}

TEST_CASE("pooling errors name the input and the window") {
  Tensor x = zeros({2, 3, 4, 4});
  CHECK_THROWS_WITH(F::max_pool2d(x, 3, 1, 2),
                    Contains("padding [2, 2] should be non-negative and at most half of the kernel size [3, 3]"));
  CHECK_THROWS_WITH(F::max_pool2d(x, 5),
                    Contains("input [2, 3, 4, 4] with kernel_size [5, 5], stride [5, 5], padding [0, 0] and "
                             "dilation [1, 1] gives an empty output [0, 0]"));
  CHECK_THROWS_WITH(F::avg_pool2d(x, 0), Contains("avg_pool2d: kernel_size [0, 0]"));
  CHECK_THROWS_WITH(F::avg_pool2d(zeros({4, 4}), 2), Contains("expected a 3-D (unbatched) or 4-D (batched) input"));
  CHECK_THROWS_WITH(F::adaptive_avg_pool2d(zeros({1, 0, 4, 4}), 2), Contains("non-zero channels"));
}

TEST_CASE("a batch split over threads matches image-by-image convolution and its gradients") {
  manual_seed(9);
  Conv2d conv(Conv2dOptions(3, 8, 5).padding(2).stride({1, 2}));
  Tensor x = randn({37, 3, 16, 15}).requires_grad_();
  Tensor out = conv(x);
  Tensor grad_out = randn(out.sizes());
  out.backward(grad_out);
  Tensor grad_weight = conv->weight.grad().clone(), grad_bias = conv->bias.grad().clone();
  conv->zero_grad();
  for (int64_t n = 0; n < x.size(0); n += 12) {
    Tensor image = x.detach().narrow(0, n, 1).squeeze(0).requires_grad_();
    Tensor single = conv(image);
    CHECK(allclose(single, out.detach()[n], 1e-5, 1e-5));
    single.backward(grad_out[n]);
    CHECK(allclose(image.grad(), x.grad()[n], 1e-5, 1e-5));
  }
  // The per-image weight gradients add up to the batch's.
  conv->zero_grad();
  for (int64_t n = 0; n < x.size(0); ++n) conv(x.detach()[n]).backward(grad_out[n]);
  CHECK(allclose(conv->weight.grad(), grad_weight, 1e-4, 1e-4));
  CHECK(allclose(conv->bias.grad(), grad_bias, 1e-4, 1e-4));
}

TEST_CASE("max pooling passes NaN through and sends the gradient to the argmax") {
  Tensor x = tensor<float>({1, 5, NAN, 2, 7, 3, 0, 4, 6}, {1, 1, 3, 3}).requires_grad_();
  auto [out, indices] = F::max_pool2d_with_indices(x, 2, 1);
  std::vector<float> values = out.to_vector<float>();
  // Windows: {1, 5, 2, 7}, {5, NaN, 7, 3}, {2, 7, 0, 4}, {7, 3, 4, 6}.
  CHECK(values[0] == 7);
  CHECK(std::isnan(values[1]));
  CHECK(values[2] == 7);
  CHECK(values[3] == 7);
  CHECK(indices.to_vector<int64_t>() == std::vector<int64_t>{4, 2, 4, 4});
  out.sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{0, 0, 1, 0, 3, 0, 0, 0, 0});
}

// Max pooling's value and argmax for one window, as the plain rule: the first maximum in
// row-major order, a NaN over everything, a later NaN over an earlier one.
std::pair<float, int64_t> window_max(const std::vector<float>& plane, int64_t width, int64_t y0, int64_t x0,
                                     int64_t kernel) {
  float best = -INFINITY;
  int64_t at = y0 * width + x0;
  for (int64_t y = y0; y < y0 + kernel; ++y) {
    for (int64_t x = x0; x < x0 + kernel; ++x) {
      float v = plane[y * width + x];
      if (v > best || std::isnan(v)) {
        best = v;
        at = y * width + x;
      }
    }
  }
  return {best, at};
}

TEST_CASE("max pooling without padding (its fast CPU paths) is the plain rule, ties and NaN included") {
  // 2x2 stride 2 on planes 75 and 18 outputs wide (the vector path, across its 64-wide
  // chunks) and 4 wide; 3x3 stride 2 and 2x2 stride 1 (the general path without padding).
  struct Case {
    int64_t height, width, kernel, stride;
  };
  const Case cases[] = {{6, 151, 2, 2}, {9, 37, 2, 2}, {8, 9, 2, 2}, {9, 37, 3, 2}, {5, 11, 2, 1}};
  std::mt19937 gen(5);
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.height << "x" << c.width << " kernel " << c.kernel << " stride " << c.stride) {
      // Four distinct values, so windows often tie; a few NaNs.
      std::vector<float> values(6 * c.height * c.width);
      for (float& v : values) v = static_cast<float>(gen() % 4);
      for (size_t i = 7; i < values.size(); i += 97) values[i] = NAN;
      Tensor x = tensor<float>(values, {2, 3, c.height, c.width});
      auto [out, indices] = F::max_pool2d_with_indices(x, c.kernel, c.stride);
      const int64_t out_h = out.size(2), out_w = out.size(3), plane = c.height * c.width;
      std::vector<float> got = out.to_vector<float>();
      std::vector<int64_t> got_at = indices.to_vector<int64_t>();
      for (int64_t n = 0; n < 6; ++n) {
        std::vector<float> input(values.begin() + n * plane, values.begin() + (n + 1) * plane);
        for (int64_t oy = 0; oy < out_h; ++oy) {
          for (int64_t ox = 0; ox < out_w; ++ox) {
            auto [best, at] = window_max(input, c.width, oy * c.stride, ox * c.stride, c.kernel);
            int64_t o = (n * out_h + oy) * out_w + ox;
            INFO("plane " << n << ", output (" << oy << ", " << ox << ")");
            CHECK(got_at[o] == at);
            CHECK((got[o] == best || (std::isnan(got[o]) && std::isnan(best))));
          }
        }
      }
    }
  }
}

TEST_CASE("a dilated max pooling window whose taps all miss the input gives -inf and no gradient") {
  // Taps at rows and columns -2 and 1 of a 1x1 input (padding 2 is half the dilated kernel).
  Tensor x = ones({1, 1, 1, 1}).requires_grad_();
  Tensor out = F::max_pool2d(x, 2, 2, 2, 3);
  REQUIRE(out.sizes() == Shape{1, 1, 1, 1});
  CHECK(out.item<float>() == -INFINITY);
  out.backward(ones({1, 1, 1, 1}));
  CHECK(x.grad().item<float>() == 0);
}

TEST_CASE("dropout zeroes with probability p, scales the rest and is the identity in eval") {
  Tensor x = full({200, 100}, 2.0).requires_grad_();
  Generator gen(123);
  Dropout dropout(DropoutOptions(0.3).generator(&gen));
  Tensor y = dropout(x);
  std::vector<float> values = y.to_vector<float>();
  size_t zeros_seen = 0;
  for (float v : values) {
    if (v == 0) {
      ++zeros_seen;
    } else {
      CHECK(v == Approx(2.0 / 0.7));
    }
  }
  CHECK(static_cast<double>(zeros_seen) / values.size() == Approx(0.3).margin(0.02));
  // The gradient is the same mask, scaled.
  y.sum().backward();
  CHECK(allclose(x.grad() * 2.0, y.detach()));
  // The same seed gives the same mask.
  gen.manual_seed(123);
  CHECK(equal(dropout(x), y));
  dropout->eval();
  CHECK(dropout(x).is_same(x));
  CHECK(equal(F::dropout(x, 1.0), zeros_like(x)));
  CHECK_THROWS_WITH(Dropout(1.5), Contains("between 0 and 1, but got 1.5"));
}

TEST_CASE("dropout2d zeroes whole channels with probability p, scales the rest and is the identity in eval") {
  Tensor x = full({40, 50, 3, 2}, 2.0).requires_grad_();
  Generator gen(7);
  Dropout2d dropout(Dropout2dOptions(0.3).generator(&gen));
  Tensor y = dropout(x);
  // Per [n, c] plane: all zero or all 2 / 0.7.
  Tensor plane_min = amin(y.detach(), {2, 3}), plane_max = amax(y.detach(), {2, 3});
  CHECK(equal(plane_min, plane_max));
  Tensor dropped = plane_max.eq(0.0).to(kFloat32);
  CHECK(dropped.mean().item<double>() == Approx(0.3).margin(0.03));
  CHECK(allclose(plane_max + dropped * (2.0 / 0.7), full({40, 50}, 2.0 / 0.7)));
  y.sum().backward();
  CHECK(allclose(x.grad() * 2.0, y.detach()));
  // [N, C, L]: channels of 1-D signals, as PyTorch reads a 3-D input.
  Tensor signal = F::dropout2d(full({30, 40, 5}, 1.0), 0.5, true, &gen);
  CHECK(equal(amin(signal, {2}), amax(signal, {2})));
  dropout->eval();
  CHECK(dropout(x).is_same(x));
  CHECK(equal(F::dropout2d(x, 1.0), zeros_like(x)));
  CHECK_THROWS_WITH(Dropout2d(-0.1), Contains("Dropout2d: probability has to be between 0 and 1, but got -0.1"));
  CHECK_THROWS_WITH(F::dropout2d(zeros({4, 5})), Contains("dropout2d: expected an input [N, C, H, W] or [N, C, L]"));
}

TEST_CASE("cross_entropy refuses class-probability targets of another shape, and ignore_index with them") {
  Tensor logits = zeros({3, 4});
  CHECK_THROWS_WITH(F::cross_entropy(logits, zeros({3, 5})),
                    Contains("cross_entropy: a floating point target holds class probabilities and must have the "
                             "input's shape [3, 4], got target"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, zeros({3, 4}), Tensor(), 2),
                    Contains("cross_entropy: ignore_index (2) is not supported with class-probability targets"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, zeros({3, 4}), ones({3})), Contains("cross_entropy: weight"));
  CHECK_THROWS_WITH(F::cross_entropy(zeros({3, 4}, kInt64), zeros({3, 4})),
                    Contains("cross_entropy: expected a floating point input"));
}

TEST_CASE("losses reject bad targets with the offending value") {
  Tensor logits = zeros({3, 4});
  CHECK_THROWS_WITH(F::cross_entropy(logits, tensor<int64_t>({0, 4, 1}, {3})),
                    Contains("target 4 is out of bounds for 4 classes"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, tensor<int64_t>({0, 1}, {2})),
                    Contains("input [3, 4] expects a target of shape [3], got target [2]"));
  CHECK_THROWS_WITH(F::nll_loss(logits, zeros({3})), Contains("expected int64 class-index targets"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, tensor<int64_t>({0, 1, 2}, {3}), Tensor(), -100, Reduction::Mean, 1.5),
                    Contains("label_smoothing must be between 0.0 and 1.0"));
  CHECK_THROWS_WITH(F::embedding(tensor<int64_t>({0, 7}, {2}), zeros({5, 2})),
                    Contains("index 7 is out of range for 5 embeddings"));
}

TEST_CASE("batch_norm refuses a single value per channel in training") {
  BatchNorm1d bn(3);
  CHECK_THROWS_WITH(bn(zeros({1, 3})),
                    Contains("expected more than 1 value per channel when training, got input [1, 3]"));
  CHECK_THROWS_WITH(bn(zeros({2, 3, 4, 5})), Contains("BatchNorm1d: expected a 2-D or 3-D input"));
  bn->eval();
  CHECK(bn(zeros({1, 3})).sizes() == Shape{1, 3});
}

// A backend with only the kernels every device must have: conv and pooling fall back on
// Backend's defaults.
class MinimalBackend final : public Backend {
 public:
  void copy(const Tensor&, const Tensor&, bool) override {}
  void unary(UnaryOp, const Tensor&, const Tensor&, OpParams) override {}
  void binary(BinaryOp, const Tensor&, const Tensor&, const Tensor&, OpParams) override {}
  void ternary(TernaryOp, const Tensor&, const Tensor&, const Tensor&, const Tensor&, OpParams) override {}
  void reduce(ReduceOp, const Tensor&, const Tensor&, const Tensor&, const std::vector<int64_t>&, OpParams) override {}
  void softmax(const Tensor&, const Tensor&, int64_t, bool) override {}
  void softmax_backward(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) override {}
  void batched_gemm(const Tensor&, const Tensor&, const Tensor&, double, double) override {}
  void index_select(const Tensor&, const Tensor&, int64_t, const Tensor&) override {}
  void gather(const Tensor&, const Tensor&, int64_t, const Tensor&) override {}
  void scatter_add(const Tensor&, int64_t, const Tensor&, const Tensor&) override {}
  void random(RandomOp, const Tensor&, uint64_t, uint64_t, OpParams) override {}
};

TEST_CASE("a backend without conv and pooling kernels names the op and the device") {
  MinimalBackend backend;
  Tensor t = zeros({1, 1, 2, 2});
  CHECK_THROWS_WITH(backend.conv2d(t, t, t, Tensor(), {}), "conv2d: not implemented for device cpu yet");
  CHECK_THROWS_WITH(backend.conv2d_backward(t, t, t, t, t, t, {}),
                    "conv2d_backward: not implemented for device cpu yet");
  CHECK_THROWS_WITH(backend.max_pool2d(t, t, t, {}), "max_pool2d: not implemented for device cpu yet");
  CHECK_THROWS_WITH(backend.avg_pool2d_backward(t, t, {}), "avg_pool2d_backward: not implemented for device cpu yet");
  CHECK_THROWS_WITH(backend.adaptive_avg_pool2d(t, t), "adaptive_avg_pool2d: not implemented for device cpu yet");
}

}  // namespace
}  // namespace brisk::nn
