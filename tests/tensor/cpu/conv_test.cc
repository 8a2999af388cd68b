// The CPU backend's two convolution paths agree: float32 runs through oneDNN (blocked layouts
// and reorders for these channel counts; Winograd kernels for 3x3 stride-1 convolutions of
// more than 16 channels on AVX-512 CPUs), float64 through im2col + GEMM, so a float32 result
// must equal the float64 one on the same values to float32 rounding, forward and backward,
// across the geometries of CIFAR networks and the unusual ones (groups, dilation, stride
// larger than the kernel, asymmetric padding that drops rows).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/ops.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

struct Case {
  const char* name;
  Shape input, weight;
  Conv2dParams params;
  bool bias;
};

Tensor random_f64(const Shape& shape, Generator& gen) { return randn(shape, kFloat64, &gen); }

// a (float32) within float32 rounding of b (float64), relative to b's largest magnitude.
void require_matches(const Tensor& a, const Tensor& b) {
  std::vector<double> expected = b.to_vector<double>();
  double scale = 1;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  std::vector<double> got = native::to(a, kCPU, kFloat64).to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << " of " << a.describe() << ": got " << got[i] << ", expected " << expected[i]);
    REQUIRE(std::abs(got[i] - expected[i]) <= 1e-5 * scale);
  }
}

TEST_CASE("float32 conv2d (oneDNN) matches float64 (im2col), forward and backward") {
  const Case cases[] = {
      {"3x3 16 -> 16, the ResNet stage", {4, 16, 12, 12}, {16, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, false},
      {"3x3 16 -> 32 stride 2", {3, 16, 10, 9}, {32, 16, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}, true},
      {"stem 3 -> 16", {2, 3, 8, 8}, {16, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},
      {"1x1 stride 2 projection", {2, 16, 8, 8}, {32, 16, 1, 1}, {{2, 2}, {0, 0}, {1, 1}, 1}, false},
      {"groups", {2, 32, 7, 7}, {32, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 4}, true},
      {"dilation and uneven padding", {2, 16, 11, 9}, {16, 16, 3, 2}, {{2, 3}, {2, 1}, {2, 3}, 1}, true},
      {"stride past the kernel, rows dropped", {1, 16, 9, 10}, {16, 16, 2, 2}, {{3, 3}, {0, 1}, {1, 1}, 1}, false},
      {"3x3 64 -> 64, Winograd where the CPU has it",
       {4, 64, 15, 15},
       {64, 64, 3, 3},
       {{1, 1}, {1, 1}, {1, 1}, 1},
       false},
      {"3x3 256 -> 256, Winograd where the CPU has it",
       {2, 256, 7, 7},
       {256, 256, 3, 3},
       {{1, 1}, {1, 1}, {1, 1}, 1},
       true},
  };
  Generator gen(11);
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Tensor x = random_f64(c.input, gen), w = random_f64(c.weight, gen) * 0.2;
      Tensor b = c.bias ? random_f64({c.weight[0]}, gen) : Tensor();
      auto f32 = [](const Tensor& t) { return t.defined() ? native::to(t, kCPU, kFloat32) : t; };
      Tensor out64 = native::conv2d(x, w, b, c.params);
      Tensor out32 = native::conv2d(f32(x), f32(w), f32(b), c.params);
      require_matches(out32, out64);

      Tensor g = random_f64(out64.sizes(), gen);
      auto grads64 = native::conv2d_backward(g, x, w, c.params, {true, true, c.bias});
      auto grads32 = native::conv2d_backward(f32(g), f32(x), f32(w), c.params, {true, true, c.bias});
      for (int i = 0; i < (c.bias ? 3 : 2); ++i) require_matches(grads32[i], grads64[i]);
      // Each gradient alone (the backward kernels run separately).
      require_matches(native::conv2d_backward(f32(g), f32(x), f32(w), c.params, {false, true, false})[1], grads64[1]);
      require_matches(native::conv2d_backward(f32(g), f32(x), f32(w), c.params, {true, false, false})[0], grads64[0]);
    }
  }
}

}  // namespace
}  // namespace brisk
