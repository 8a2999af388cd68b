// CudaBackend's convolution (cuda/conv.cc, cuDNN) and pooling (cuda/pool.cu) against the CPU
// backend on random inputs: conv2d forward and its input, weight and bias gradients over
// strides, padding, dilation, groups and bias on/off, in float32 (exact and TF32), float64,
// and bfloat16 and float16 (against float64, within a bound derived from their rounding); max
// pooling's values, indices and gradient; average pooling with ceil mode, count_include_pad
// and divisor_override; adaptive average pooling down and up; the same
// pooling ops and gradients in bfloat16 and float16 against float32 on the rounded inputs,
// rounded; the reuse of cached cuDNN algorithms; and channels_last (NHWC) convolutions in
// float32, bfloat16 and float16 against the CPU, with a tensor-op algorithm chosen for bfloat16.
#include <array>
#include <cmath>
#include <functional>

#include "cuda/blas.h"
#include "cuda/conv_algorithm_cache.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;
using testing::relative_error;
using testing::require_matches;
using testing::Tolerance;

struct ConvCase {
  Shape input;   // [N, C, H, W]
  Shape weight;  // [OC, C / groups, KH, KW]
  Conv2dParams params;
  bool bias;
};

Conv2dParams conv_params(Pair stride, Pair padding, Pair dilation, int64_t groups) {
  Conv2dParams p;
  p.stride = stride;
  p.padding = padding;
  p.dilation = dilation;
  p.groups = groups;
  return p;
}

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases{
      {{8, 1, 28, 28}, {6, 1, 5, 5}, conv_params({1, 1}, {2, 2}, {1, 1}, 1), true},       // LeNet conv1
      {{8, 6, 14, 14}, {16, 6, 5, 5}, conv_params({1, 1}, {0, 0}, {1, 1}, 1), true},      // LeNet conv2
      {{4, 3, 17, 15}, {8, 3, 3, 3}, conv_params({2, 1}, {1, 0}, {1, 1}, 1), false},      // uneven stride
      {{2, 4, 16, 16}, {6, 4, 3, 3}, conv_params({1, 1}, {2, 2}, {2, 2}, 1), true},       // dilation
      {{3, 6, 12, 11}, {9, 2, 3, 3}, conv_params({1, 2}, {1, 1}, {1, 1}, 3), true},       // groups
      {{2, 8, 10, 10}, {8, 1, 3, 3}, conv_params({1, 1}, {1, 1}, {1, 1}, 8), false},      // depthwise
      {{5, 16, 9, 9}, {32, 16, 1, 1}, conv_params({1, 1}, {0, 0}, {1, 1}, 1), true},      // pointwise
      {{1, 2, 7, 9}, {4, 2, 2, 4}, conv_params({3, 2}, {1, 2}, {2, 1}, 1), true},         // all mixed
      {{2, 64, 32, 32}, {128, 64, 3, 3}, conv_params({1, 1}, {1, 1}, {1, 1}, 1), false},  // a ResNet-sized layer
  };
  return cases;
}

Tensor f64(const Tensor& t) { return t.defined() ? native::to(t, kCPU, kFloat64) : Tensor(); }

double norm(const Tensor& t) { return native::reduce(ReduceOp::Norm, t, {}, false, OpParams{2.0}).item<double>(); }

// The largest relative error, ||got - want|| / ||want||, each result of a case may have
// against float64: the output, then the input, weight and bias gradients.
using Bounds = std::array<double, 4>;

// What a case's bounds are derived from: its inputs (CPU tensors of the dtype under test; b
// undefined without bias) and the float64 results on them.
struct ConvRun {
  const ConvCase& c;
  Tensor x, w, b, grad;
  Tensor want;
  std::array<Tensor, 3> want_grads;
};

using BoundsOf = std::function<Bounds(const ConvRun&)>;

BoundsOf fixed(double bound) {
  return [bound](const ConvRun&) { return Bounds{bound, bound, bound, bound}; };
}

// conv2d and its three gradients of a case on the GPU, each within its bound (relative norm)
// of the float64 CPU result on the same (rounded) inputs. With ChannelsLast the GPU's operands
// are channels_last, and so must its output and input and weight gradients be.
void check_conv(const ConvCase& c, DType dtype, const BoundsOf& bounds_of, uint64_t seed,
                MemoryFormat format = MemoryFormat::Contiguous) {
  Tensor x = random_cpu(c.input, dtype, seed);
  Tensor w = random_cpu(c.weight, dtype, seed + 1, -0.5, 0.5);
  Tensor b = c.bias ? random_cpu({c.weight[0]}, dtype, seed + 2) : Tensor();
  Tensor want = native::conv2d(f64(x), f64(w), f64(b), c.params);
  Tensor grad = random_cpu(want.sizes(), dtype, seed + 3);
  auto want_grads = native::conv2d_backward(f64(grad), f64(x), f64(w), c.params, {true, true, true});
  Bounds bounds = bounds_of(ConvRun{c, x, w, b, grad, want, want_grads});

  auto gpu = [&](const Tensor& t) { return native::contiguous(on_gpu(t), format); };
  Tensor got = native::conv2d(gpu(x), gpu(w), c.bias ? on_gpu(b) : Tensor(), c.params);
  REQUIRE(got.sizes() == want.sizes());
  CHECK(got.is_contiguous(format));
  REQUIRE(got.dtype() == dtype);
  CHECK(relative_error(got, want) <= bounds[0]);

  auto got_grads = native::conv2d_backward(gpu(grad), gpu(x), gpu(w), c.params, {true, true, true});
  CHECK(got_grads[0].is_contiguous(format));
  CHECK(got_grads[1].is_contiguous(format));
  const char* names[3] = {"grad_input", "grad_weight", "grad_bias"};
  for (int i = 0; i < 3; ++i) {
    INFO(names[i]);
    REQUIRE(got_grads[i].is_cuda());
    REQUIRE(got_grads[i].dtype() == dtype);
    REQUIRE(got_grads[i].sizes() == want_grads[i].sizes());
    CHECK(relative_error(got_grads[i], want_grads[i]) <= bounds[i + 1]);
  }
  // Each gradient alone equals the one computed with the others.
  auto weight_only = native::conv2d_backward(gpu(grad), gpu(x), gpu(w), c.params, {false, true, false});
  CHECK_FALSE(weight_only[0].defined());
  CHECK_FALSE(weight_only[2].defined());
  CHECK(relative_error(weight_only[1], want_grads[1]) <= bounds[2]);
}

TEST_CASE("conv2d and its gradients match the CPU over strides, padding, dilation, groups and bias", "[gpu]") {
  uint64_t seed = 100;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const ConvCase& c : conv_cases()) {
      INFO(dtype_name(dtype) << " input " << fmt::format("{}", c.input) << " weight " << fmt::format("{}", c.weight)
                             << " groups " << c.params.groups);
      check_conv(c, dtype, fixed(dtype == kFloat64 ? 1e-10 : 1e-4), seed += 10);
    }
  }
}

// Bounds for bfloat16 and float16, from the arithmetic. The inputs are 16-bit values, exact in
// the float64 reference. Every result is a sum of K products, each exact in float32 (two 8- or
// 11-bit significands fit in 24 bits), accumulated in float32 in any order (cuDNN's
// PSEUDO_BFLOAT16/PSEUDO_HALF configurations, whose compute type is float32; the bias gradient
// is the backend's sum, which accumulates 16-bit in float32), and rounded once to the dtype:
//   - K - 1 float32 additions, each off by at most v = 2^-23 relative (round to nearest gives
//     2^-24; tensor cores may truncate), put the float32 sum s within g * A of the exact c,
//     with g = K v / (1 - K v) and A the same sum over the terms' magnitudes (the convolution
//     of |x| and |w|, or of |grad| and |x|, computed in float64);
//   - rounding to the dtype changes a value v by at most r |v| + h, where r = u + 2^-23 covers
//     the unit roundoff u (2^-8 bfloat16, 2^-11 float16) and a float32 rounding before it (the
//     bias add computes in float32), and h is half the spacing of the dtype's subnormals
//     (2^-134 bfloat16, 2^-25 float16), the absolute error of tiny results;
// so element by element |rounded(s) - c| <= r |c| + (1 + r) g A + h, and by the triangle
// inequality over the n elements, E = r ||c|| + (1 + r) g ||A|| + h sqrt(n). With a bias, its
// add in float32 and rounding give (1 + r) E + r ||c + bias|| + h sqrt(n).
// K: C / groups * KH * KW for the output; at most OC / groups * KH * KW terms reach one input
// gradient; N * OH * OW for the weight and bias gradients.
Bounds reduced_float_bounds(const ConvRun& run) {
  const ConvCase& c = run.c;
  DType dtype = run.x.dtype();
  double r = std::ldexp(1.0, dtype == kBFloat16 ? -8 : -11) + std::ldexp(1.0, -23);
  double h = std::ldexp(1.0, dtype == kBFloat16 ? -134 : -25);
  auto root_n = [](const Tensor& t) { return std::sqrt(static_cast<double>(t.numel())); };
  // E for results `exact` (float64, without bias), sums of k terms whose magnitudes sum to a.
  auto sum_bound = [&](const Tensor& exact, const Tensor& a, int64_t k) {
    double kv = static_cast<double>(k) * std::ldexp(1.0, -23);
    return r * norm(exact) + (1 + r) * kv / (1 - kv) * norm(a) + h * root_n(exact);
  };
  auto abs64 = [](const Tensor& t) { return native::unary(UnaryOp::Abs, f64(t)); };
  const Shape& ws = c.weight;  // [OC, C / groups, KH, KW]
  int64_t taps = ws[2] * ws[3];
  Tensor conv = run.want;  // without the bias
  if (run.b.defined()) {
    conv = native::binary(BinaryOp::Sub, run.want, native::view(f64(run.b), {1, ws[0], 1, 1}), OpParams{1.0});
  }
  double out = sum_bound(conv, native::conv2d(abs64(run.x), abs64(run.w), Tensor(), c.params), ws[1] * taps);
  if (run.b.defined()) out = (1 + r) * out + r * norm(run.want) + h * root_n(run.want);

  auto a = native::conv2d_backward(abs64(run.grad), abs64(run.x), abs64(run.w), c.params, {true, true, true});
  const std::array<Tensor, 3>& g = run.want_grads;
  int64_t per_channel = run.grad.size(0) * run.grad.size(2) * run.grad.size(3);  // N * OH * OW
  return {out / norm(run.want), sum_bound(g[0], a[0], ws[0] / c.params.groups * taps) / norm(g[0]),
          sum_bound(g[1], a[1], per_channel) / norm(g[1]), sum_bound(g[2], a[2], per_channel) / norm(g[2])};
}

TEST_CASE("conv2d and its gradients in bfloat16 and float16 stay within the rounding bound of float64", "[gpu]") {
  uint64_t seed = 300;
  for (DType dtype : {kBFloat16, kFloat16}) {
    for (const ConvCase& c : conv_cases()) {
      INFO(dtype_name(dtype) << " input " << fmt::format("{}", c.input) << " weight " << fmt::format("{}", c.weight)
                             << " groups " << c.params.groups);
      check_conv(c, dtype, reduced_float_bounds, seed += 10);
    }
  }
}

TEST_CASE("channels_last conv2d and its gradients match the CPU in float32, bfloat16 and float16", "[gpu]") {
  uint64_t seed = 700;
  for (const ConvCase& c : conv_cases()) {
    INFO("input " << fmt::format("{}", c.input) << " weight " << fmt::format("{}", c.weight) << " groups "
                  << c.params.groups);
    check_conv(c, kFloat32, fixed(1e-4), seed += 10, MemoryFormat::ChannelsLast);
    for (DType dtype : {kBFloat16, kFloat16}) {
      INFO(dtype_name(dtype));
      check_conv(c, dtype, reduced_float_bounds, seed += 10, MemoryFormat::ChannelsLast);
    }
  }
}

TEST_CASE("a channels_last bfloat16 convolution runs a tensor-op algorithm in every pass", "[gpu]") {
  cuda::clear_conv_algorithm_cache();
  const ConvCase& resnet_layer = conv_cases().back();
  check_conv(resnet_layer, kBFloat16, reduced_float_bounds, 900, MemoryFormat::ChannelsLast);
  std::vector<cuda::ConvAlgorithmChoice> choices = cuda::conv_algorithm_choices();
  CHECK(choices.size() == 3);  // forward, backward data, backward filter
  for (const cuda::ConvAlgorithmChoice& choice : choices) {
    INFO(cuda::describe(choice));
    CHECK(choice.dtype == kBFloat16);
    CHECK(choice.channels_last);
    CHECK(cuda::is_tensor_op_math(choice.algorithm.math));
  }
}

TEST_CASE("conv2d in float32 with TF32 allowed stays within TF32's error", "[gpu]") {
  cuda::set_allow_tf32(true);
  uint64_t seed = 500;
  for (const ConvCase& c : conv_cases()) check_conv(c, kFloat32, fixed(5e-3), seed += 10);
  cuda::set_allow_tf32(false);
}

TEST_CASE("conv2d takes unbatched and non-contiguous inputs and rejects integer dtypes on CUDA", "[gpu]") {
  Tensor x = random_cpu({3, 9, 8}, kFloat32, 1);
  Tensor w = random_cpu({4, 3, 3, 3}, kFloat32, 2);
  Conv2dParams p = conv_params({1, 1}, {1, 1}, {1, 1}, 1);
  require_matches(native::conv2d(on_gpu(x), on_gpu(w), Tensor(), p), native::conv2d(x, w, Tensor(), p),
                  Tolerance{1e-4, 1e-5});
  Tensor xt = native::transpose(random_cpu({2, 3, 8, 9}, kFloat32, 3), 2, 3);  // [2, 3, 9, 8], strided
  require_matches(native::conv2d(on_gpu(xt), on_gpu(w), Tensor(), p), native::conv2d(xt, w, Tensor(), p),
                  Tolerance{1e-4, 1e-5});
  Tensor xi = native::to(on_gpu(x), testing::kCuda, kInt32);
  CHECK_THROWS_AS(native::conv2d(xi, native::to(on_gpu(w), testing::kCuda, kInt32), Tensor(), p), Error);
}

TEST_CASE("conv2d reuses the cached cuDNN algorithms of a problem", "[gpu]") {
  cuda::clear_conv_algorithm_cache();
  Conv2dParams p = conv_params({1, 1}, {1, 1}, {1, 1}, 1);
  Tensor x = on_gpu(random_cpu({4, 3, 16, 16}, kFloat32, 7));
  Tensor w = on_gpu(random_cpu({8, 3, 3, 3}, kFloat32, 8));
  Tensor first = native::conv2d(x, w, Tensor(), p);
  cuda::ConvAlgorithmCacheStats after_first = cuda::conv_algorithm_cache_stats();
  CHECK(after_first.entries == 1);
  CHECK(after_first.misses == 1);
  CHECK(after_first.hits == 0);
  Tensor second = native::conv2d(x, w, Tensor(), p);
  cuda::ConvAlgorithmCacheStats after_second = cuda::conv_algorithm_cache_stats();
  CHECK(after_second.entries == 1);
  CHECK(after_second.misses == 1);
  CHECK(after_second.hits == 1);
  require_matches(second, on_cpu(first), Tolerance{0, 0});  // same algorithm, same bits

  // The backward passes are problems of their own; a new shape or dtype is too.
  Tensor grad = native::ones(first.sizes(), TensorOptions(kFloat32).device(testing::kCuda));
  native::conv2d_backward(grad, x, w, p, {true, true, false});
  CHECK(cuda::conv_algorithm_cache_stats().entries == 3);
  native::conv2d(on_gpu(random_cpu({5, 3, 16, 16}, kFloat32, 9)), w, Tensor(), p);
  native::conv2d(native::to(x, testing::kCuda, kFloat64), native::to(w, testing::kCuda, kFloat64), Tensor(), p);
  cuda::ConvAlgorithmCacheStats last = cuda::conv_algorithm_cache_stats();
  CHECK(last.entries == 5);
  CHECK(last.misses == 5);
  CHECK(last.hits == 1);
}

Pool2dParams pool_params(Pair kernel, Pair stride, Pair padding, Pair dilation, bool ceil_mode) {
  Pool2dParams p;
  p.kernel = kernel;
  p.stride = stride;
  p.padding = padding;
  p.dilation = dilation;
  p.ceil_mode = ceil_mode;
  return p;
}

struct PoolCase {
  Shape input;
  Pool2dParams params;
};

const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases{
      {{8, 6, 28, 28}, pool_params({2, 2}, {2, 2}, {0, 0}, {1, 1}, false)},    // LeNet
      {{2, 3, 7, 5}, pool_params({3, 3}, {2, 2}, {1, 1}, {1, 1}, true)},       // padding, ceil mode
      {{2, 2, 7, 9}, pool_params({2, 3}, {1, 2}, {0, 1}, {2, 2}, false)},      // dilation
      {{1, 4, 9, 9}, pool_params({3, 3}, {1, 1}, {1, 1}, {1, 1}, false)},      // overlapping windows
      {{3, 5, 6, 11}, pool_params({4, 2}, {3, 1}, {2, 1}, {1, 1}, true)},      // uneven, ceil mode
      {{64, 64, 56, 56}, pool_params({3, 3}, {2, 2}, {1, 1}, {1, 1}, false)},  // a ResNet stem
  };
  return cases;
}

Tolerance pool_tolerance(DType dtype) { return dtype == kFloat64 ? Tolerance{1e-13, 1e-15} : Tolerance{2e-6, 1e-7}; }

// gamma_m = m u / (1 - m u): the relative error bound of m roundings of unit roundoff u
// (Higham, Accuracy and Stability of Numerical Algorithms, lemma 3.1).
double higham_gamma(int64_t m, double u) { return m * u / (1 - m * u); }

// max_pool2d_backward's gradient `gpu` against the CPU's `cpu` for the upstream gradient `grad`
// of input `x` with `indices`. At each input the k gradients g of the windows whose maximum it
// is are summed in different orders (k is 0 to 4 in a 3x3 stride-2 pool, up to 9 at stride 1):
//   - the CPU adds them in output order, in the gradient's dtype, onto zero: the first
//     addition is exact, the other k - 1 round, at most gamma_{k-1} sum|g| in all (Higham's
//     bound for recursive summation, (4.4), each partial sum being at most sum|g|);
//   - the GPU (cuda/pool.cu) sums float32 gradients in float64 and rounds once: at most
//     gamma64_{k-1} sum|g| (zero when the additions are exact, the usual case) plus
//     u32 (1 + gamma64_{k-1}) sum|g| for the rounding to float32; float64 gradients it adds in
//     float64 in the atomics' order: gamma64_{k-1} sum|g| like the CPU's.
// Where k <= 1 both copy the gradient exactly. sum|g| and k are computed on the CPU in float64
// (exact for k; for sum|g| a relative error of order 2^-53, far inside the bound's terms).
void require_max_pool_backward_matches(const Tensor& gpu, const Tensor& cpu, const Tensor& grad, const Tensor& x,
                                       const Tensor& indices) {
  auto f64 = [](const Tensor& t) { return native::to(t, kCPU, kFloat64); };
  Tensor x64 = f64(x);
  std::vector<double> count =
      native::max_pool2d_backward(native::ones(grad.sizes(), kFloat64), x64, indices).to_vector<double>();
  std::vector<double> abs_sum =
      native::max_pool2d_backward(native::unary(UnaryOp::Abs, f64(grad)), x64, indices).to_vector<double>();
  const double u32 = std::ldexp(1.0, -24), u64 = std::ldexp(1.0, -53);
  const bool float32 = cpu.dtype() == kFloat32;
  testing::require_elements_within(gpu, cpu, [&](size_t i, double) {
    auto k = static_cast<int64_t>(count[i]);
    if (k <= 1) return 0.0;
    double gamma32 = higham_gamma(k - 1, u32), gamma64 = higham_gamma(k - 1, u64);
    return (float32 ? gamma32 + u32 * (1 + gamma64) + gamma64 : 2 * gamma64) * abs_sum[i];
  });
}

TEST_CASE("max_pool2d values, indices and gradient match the CPU", "[gpu]") {
  uint64_t seed = 1000;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& c : pool_cases()) {
      INFO(dtype_name(dtype) << " input " << fmt::format("{}", c.input) << " kernel "
                             << fmt::format("{}", c.params.kernel));
      Tensor x = random_cpu(c.input, dtype, ++seed);
      auto [out, indices] = native::max_pool2d_with_indices(x, c.params);
      auto [gout, gindices] = native::max_pool2d_with_indices(on_gpu(x), c.params);
      require_matches(gout, out, Tolerance{0, 0});  // a maximum is exact
      require_matches(gindices, indices, Tolerance{0, 0});
      Tensor grad = random_cpu(out.sizes(), dtype, ++seed);
      require_max_pool_backward_matches(native::max_pool2d_backward(on_gpu(grad), on_gpu(x), gindices),
                                        native::max_pool2d_backward(grad, x, indices), grad, x, indices);
    }
  }
}

TEST_CASE("max_pool2d lets NaN win as on the CPU", "[gpu]") {
  Tensor x = random_cpu({1, 2, 6, 6}, kFloat32, 5);
  std::vector<float> values = x.to_vector<float>();
  values[7] = NAN;
  values[40] = NAN;
  values[41] = NAN;
  x = native::from_vector(values, {1, 2, 6, 6}, kFloat32);
  Pool2dParams p = pool_params({3, 3}, {2, 2}, {1, 1}, {1, 1}, true);
  auto [out, indices] = native::max_pool2d_with_indices(x, p);
  auto [gout, gindices] = native::max_pool2d_with_indices(on_gpu(x), p);
  require_matches(gout, out, Tolerance{0, 0});
  require_matches(gindices, indices, Tolerance{0, 0});
}

TEST_CASE("max_pool2d windows whose dilated taps miss the input give -inf and no gradient", "[gpu]") {
  // Taps at rows and columns -2 and 1 of a 1x1 plane (padding 2 is half the dilated kernel).
  Tensor x = random_cpu({2, 3, 1, 1}, kFloat64, 11);
  Pool2dParams p = pool_params({2, 2}, {2, 2}, {2, 2}, {3, 3}, false);
  auto [out, indices] = native::max_pool2d_with_indices(x, p);
  auto [gout, gindices] = native::max_pool2d_with_indices(on_gpu(x), p);
  require_matches(gout, out, Tolerance{0, 0});
  require_matches(gindices, indices, Tolerance{0, 0});
  Tensor grad = random_cpu(out.sizes(), kFloat64, 12);
  Tensor grad_input = native::max_pool2d_backward(on_gpu(grad), on_gpu(x), gindices);
  require_matches(grad_input, native::zeros(x.sizes(), kFloat64), Tolerance{0, 0});
}

TEST_CASE("avg_pool2d and its gradient match the CPU with ceil mode, count_include_pad and divisor", "[gpu]") {
  uint64_t seed = 2000;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& c : pool_cases()) {
      for (bool include_pad : {true, false}) {
        for (int64_t divisor : {0, 5}) {
          Pool2dParams p = c.params;
          p.dilation = {1, 1};
          p.count_include_pad = include_pad;
          p.divisor_override = divisor;
          INFO(dtype_name(dtype) << " input " << fmt::format("{}", c.input) << " kernel " << fmt::format("{}", p.kernel)
                                 << " ceil " << p.ceil_mode << " include_pad " << include_pad << " divisor "
                                 << divisor);
          Tensor x = random_cpu(c.input, dtype, ++seed);
          Tensor out = native::avg_pool2d(x, p);
          require_matches(native::avg_pool2d(on_gpu(x), p), out, pool_tolerance(dtype));
          Tensor grad = random_cpu(out.sizes(), dtype, ++seed);
          require_matches(native::avg_pool2d_backward(on_gpu(grad), on_gpu(x), p),
                          native::avg_pool2d_backward(grad, x, p), pool_tolerance(dtype));
        }
      }
    }
  }
}

TEST_CASE("adaptive_avg_pool2d and its gradient match the CPU, shrinking and growing", "[gpu]") {
  uint64_t seed = 3000;
  const std::vector<std::pair<Shape, Pair>> cases{
      {{2, 3, 7, 5}, {3, 2}},      // uneven bins
      {{4, 8, 6, 6}, {1, 1}},      // global
      {{1, 2, 3, 5}, {4, 7}},      // more bins than inputs
      {{16, 512, 7, 7}, {1, 1}},   // a ResNet head
      {{2, 3, 10, 13}, {10, 13}},  // identity
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const auto& [shape, size] : cases) {
      INFO(dtype_name(dtype) << " input " << fmt::format("{}", shape) << " to " << fmt::format("{}", size));
      Tensor x = random_cpu(shape, dtype, ++seed);
      Tensor out = native::adaptive_avg_pool2d(x, size);
      require_matches(native::adaptive_avg_pool2d(on_gpu(x), size), out, pool_tolerance(dtype));
      Tensor grad = random_cpu(out.sizes(), dtype, ++seed);
      require_matches(native::adaptive_avg_pool2d_backward(on_gpu(grad), on_gpu(x)),
                      native::adaptive_avg_pool2d_backward(grad, x), pool_tolerance(dtype));
    }
  }
}

// A bfloat16/float16 value's place among the values of its dtype, from its bits: neighbours
// differ by one (+0 and -0 share place 0).
int32_t place_of(double value, DType dtype) {
  float f = static_cast<float>(value);  // exact: the value is one of the dtype's
  uint16_t bits = dtype == kBFloat16 ? BFloat16(f).bits : Half(f).bits;
  int32_t magnitude = bits & 0x7fff;
  return bits & 0x8000 ? -magnitude : magnitude;
}

// 16-bit `gpu` equals `cpu` (same dtype, on the host) within `ulps` units in the last place,
// element by element; NaN where NaN. Reports the first mismatch and how many there are.
void require_within_ulps(const Tensor& gpu, const Tensor& cpu, int32_t ulps) {
  REQUIRE(gpu.is_cuda());
  REQUIRE(gpu.sizes() == cpu.sizes());
  REQUIRE(gpu.dtype() == cpu.dtype());
  std::vector<double> got = native::to(on_cpu(gpu), kCPU, kFloat64).to_vector<double>();
  std::vector<double> want = native::to(cpu, kCPU, kFloat64).to_vector<double>();
  auto close = [&](double g, double w) {
    if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
    return std::abs(place_of(g, cpu.dtype()) - place_of(w, cpu.dtype())) <= ulps;
  };
  size_t first = 0, mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!close(got[i], want[i]) && mismatches++ == 0) first = i;
  }
  INFO("element " << first << " of " << cpu.describe() << ": GPU " << got[first] << ", float32 rounded " << want[first]
                  << "; " << mismatches << " of " << got.size() << " elements more than " << ulps << " ulps apart");
  REQUIRE(mismatches == 0);
}

Tensor to_float32(const Tensor& t) { return native::to(t, kCPU, kFloat32); }

// A float32 result rounded to `dtype`.
Tensor rounded(const Tensor& t, DType dtype) { return native::to(t, kCPU, dtype); }

TEST_CASE("pooling and its gradients in bfloat16 and float16 equal float32 on the rounded inputs, rounded", "[gpu]") {
  uint64_t seed = 4000;
  for (DType low : {kBFloat16, kFloat16}) {
    for (const PoolCase& c : pool_cases()) {
      INFO(dtype_name(low) << " input " << fmt::format("{}", c.input) << " kernel "
                           << fmt::format("{}", c.params.kernel));
      Tensor x = random_cpu(c.input, low, ++seed);
      auto [out, indices] = native::max_pool2d_with_indices(on_gpu(x), c.params);
      auto [out32, indices32] = native::max_pool2d_with_indices(to_float32(x), c.params);
      require_within_ulps(out, rounded(out32, low), 0);  // a maximum is exact
      require_matches(indices, indices32, Tolerance{0, 0});
      Tensor grad = random_cpu(out32.sizes(), low, ++seed);
      require_within_ulps(native::max_pool2d_backward(on_gpu(grad), on_gpu(x), indices),
                          rounded(native::max_pool2d_backward(to_float32(grad), to_float32(x), indices32), low), 1);

      for (bool include_pad : {true, false}) {
        Pool2dParams p = c.params;
        p.dilation = {1, 1};
        p.count_include_pad = include_pad;
        INFO("avg_pool2d, include_pad " << include_pad);
        Tensor avg32 = native::avg_pool2d(to_float32(x), p);
        require_within_ulps(native::avg_pool2d(on_gpu(x), p), rounded(avg32, low), 1);
        Tensor avg_grad = random_cpu(avg32.sizes(), low, ++seed);
        require_within_ulps(native::avg_pool2d_backward(on_gpu(avg_grad), on_gpu(x), p),
                            rounded(native::avg_pool2d_backward(to_float32(avg_grad), to_float32(x), p), low), 1);
      }
    }
    for (Pair size : {Pair{3, 2}, Pair{1, 1}, Pair{40, 30}}) {
      INFO(dtype_name(low) << " adaptive_avg_pool2d to " << fmt::format("{}", size));
      Tensor x = random_cpu({4, 16, 28, 28}, low, ++seed);
      Tensor out32 = native::adaptive_avg_pool2d(to_float32(x), size);
      require_within_ulps(native::adaptive_avg_pool2d(on_gpu(x), size), rounded(out32, low), 1);
      Tensor grad = random_cpu(out32.sizes(), low, ++seed);
      require_within_ulps(native::adaptive_avg_pool2d_backward(on_gpu(grad), on_gpu(x)),
                          rounded(native::adaptive_avg_pool2d_backward(to_float32(grad), to_float32(x)), low), 1);
    }
  }
}

}  // namespace
}  // namespace brisk
