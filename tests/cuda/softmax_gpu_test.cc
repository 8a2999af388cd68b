// CudaBackend::softmax and softmax_backward (cuda/softmax.cu) against the CPU: the last dim
// (short rows packed into warps, long rows over a block, 16-byte loads or not), inner dims,
// every floating dtype, and rows of -inf, +inf and NaN.
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_gpu;
using testing::random_cpu;
using testing::require_matches;
using testing::Tolerance;

// softmax: y = exp(x - max) / s with s = sum exp(x - max). The CPU sums s in
// float64 with a 1-ulp float32 exp; the GPU (cuda/softmax.cu) in float32 with CUDA's expf
// (2 ulp), along paths of d = n / lanes + log2(lanes) additions (at most about 130 for these
// shapes), each rounding by at most u = 2^-24 of a partial sum, and rescaling a partial sum by
// expf (2 ulp) whenever its running maximum grows. The worst case, every rounding of one sign
// and a rescale at every step, is about (6 + 6d) u = 4.6e-5; rescales come about ln(m) times
// in m random elements and a long sum's roundings do not share a sign, so rtol 2e-5 (335 u)
// bounds s's relative error, and y's, in practice. float64: the same in units of 2^-53. A
// 16-bit result may round one step apart on top.
Tolerance softmax_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {2e-5, 1e-7};
    case DType::Float64: return {1e-12, 1e-15};
    case DType::Float16: return {2e-3, 1e-6};
    default: return {1.6e-2, 1e-5};
  }
}

// The relative error of a row's sum on the GPU, which is float32 for every dtype but float64:
// softmax_tolerance's rtol.
double row_sum_error(DType dtype) { return softmax_tolerance(dtype == kFloat64 ? kFloat64 : kFloat32).rtol; }

// log_softmax: y = (x - max) - log(s). Both devices compute x - max identically; log turns
// the relative error of s (softmax_tolerance's rtol: s is summed in float32 for every dtype
// but float64) into an absolute error of log(s), and logf adds 1 ulp of log(s). Where y is
// near 0 (x the maximum and s close to 1: one term dominates) that absolute error is not
// small relative to y, so it is the atol: 2e-5 in float32 (and for 16-bit results, whose
// sums are float32), 1e-12 in float64. (On an H200, 3 of 10000 float32 results near -7.7e-4
// differed by up to 1.9e-7, 1.6 float32 ulps of s ~ 1, beyond the former atol of 1e-7.)
Tolerance log_softmax_tolerance(DType dtype) {
  Tolerance tol = softmax_tolerance(dtype);
  tol.atol = row_sum_error(dtype);
  return tol;
}

// softmax_backward from the same output y on both devices: grad_in = y (g - T) with
// T = sum g y (softmax), or g - exp(y) T with T = sum g (log_softmax). The GPU sums T over the
// row in float32 (float64 on the CPU, rounded once): at most (d + 2) u sum|term| apart (d
// additions along the GPU's path, at most about 130, the products' and the CPU's final
// roundings), 7.9e-6 of sum|term| in float32, within row_sum_error with exp's few ulps of
// exp(y) T. That error is multiplied by y (or exp(y)) and is absolute: where g - T cancels it is
// not small relative to the result. So element i may differ by rtol |want| + atol +
// row_sum_error w_i S, with w_i = y_i (exp(y_i)) and S the row's sum of |g y| (of |g|).
void require_backward_matches(const Tensor& grad, const Tensor& y, int64_t dim, bool log) {
  Tensor got = native::softmax_backward(on_gpu(grad), on_gpu(y), dim, log);
  Tensor want = native::softmax_backward(grad, y, dim, log);
  Tensor g64 = native::to(grad, kCPU, kFloat64), y64 = native::to(y, kCPU, kFloat64);
  Tensor weight = log ? native::unary(UnaryOp::Exp, y64) : y64;
  Tensor terms = native::unary(UnaryOp::Abs, log ? g64 : native::binary(BinaryOp::Mul, g64, y64));
  int64_t along = dim < 0 ? dim + y.dim() : dim;
  Tensor row_sums = native::reduce(ReduceOp::Sum, terms, {along}, true);
  std::vector<double> reach = native::binary(BinaryOp::Mul, weight, row_sums).to_vector<double>();
  const Tolerance tol = softmax_tolerance(y.dtype());
  const double error = row_sum_error(y.dtype());
  testing::require_elements_within(
      got, want, [&](size_t i, double v) { return tol.atol + tol.rtol * std::abs(v) + error * reach[i]; });
}

TEST_CASE("softmax and log_softmax forward and backward match the CPU", "[gpu]") {
  uint64_t seed = 0;
  const std::vector<std::pair<Shape, int64_t>> cases{
      {{1000, 10}, 1},     // short rows, several per warp
      {{64, 4099}, 1},     // long rows, no 16-byte loads (odd length)
      {{32, 8192}, -1},    // long aligned rows
      {{8, 3, 50257}, 2},  // a vocabulary-sized row
      {{16, 300, 7}, 1},   // the middle dim: strided columns
      {{5, 2000, 40}, 1},  // long strided columns
      {{70, 33}, 0},       // the first dim
      {{1, 1}, 1},
  };
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
    for (const auto& [shape, dim] : cases) {
      for (bool log : {false, true}) {
        INFO((log ? "log_softmax" : "softmax") << " of " << dtype_name(dtype) << " [" << shape.size() << "-D, numel "
                                               << shape_numel(shape) << "] along " << dim);
        Tensor x = random_cpu(shape, dtype, ++seed, -5.0, 5.0);
        Tensor y = native::softmax(x, dim, log);
        Tensor gy = native::softmax(on_gpu(x), dim, log);
        require_matches(gy, y, log ? log_softmax_tolerance(dtype) : softmax_tolerance(dtype));
        Tensor grad = random_cpu(shape, dtype, ++seed);
        // Backward from the same output on both devices, so only the backward kernel differs.
        require_backward_matches(grad, y, dim, log);
      }
    }
  }
}

TEST_CASE("softmax rows with infinities and NaN follow the CPU", "[gpu]") {
  std::vector<float> rows{
      -INFINITY, -INFINITY, -INFINITY, -INFINITY,  // all -inf: NaN
      1.0f,      -INFINITY, 2.0f,      -INFINITY,  // -inf entries get 0
      INFINITY,  1.0f,      2.0f,      3.0f,       // +inf: NaN
      NAN,       1.0f,      2.0f,      3.0f,       // NaN: NaN
      1e30f,     -1e30f,    0.0f,      1e30f,      // huge but finite
  };
  Tensor x = native::from_vector(rows, {5, 4}, kFloat32);
  for (bool log : {false, true}) {
    require_matches(native::softmax(on_gpu(x), 1, log), native::softmax(x, 1, log),
                    log ? log_softmax_tolerance(kFloat32) : softmax_tolerance(kFloat32));
  }
}

}  // namespace
}  // namespace brisk
