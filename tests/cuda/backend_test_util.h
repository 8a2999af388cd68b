#pragma once
// Helpers for the CUDA backend's tests, which run each op on the CPU and on the GPU and
// compare: random inputs, moving them to the GPU, and element-by-element comparison with a
// tolerance chosen per dtype.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tensor/generator.h"
#include "tensor/native/ops.h"

namespace brisk::testing {

inline const Device kCuda = cuda_device(0);

// A CPU tensor of `shape` and `dtype` drawn uniformly from [lo, hi) (integers: rounded
// toward zero; bool: half true), fresh for every seed.
inline Tensor random_cpu(const Shape& shape, DType dtype, uint64_t seed, double lo = -2.0, double hi = 2.0) {
  Generator gen(seed);
  Tensor t = native::empty(shape, kFloat64);
  if (dtype == kBool) {
    native::bernoulli_(t, 0.5, &gen);
  } else {
    native::uniform_(t, lo, hi, &gen);
  }
  return native::to(t, kCPU, dtype);
}

inline Tensor on_gpu(const Tensor& t) { return native::to(t, kCuda, t.dtype()); }

inline Tensor on_cpu(const Tensor& t) { return native::to(t, kCPU, t.dtype()); }

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// The tolerance of an elementwise result, by the result's dtype (exp of an int64 tensor is
// float32, and gets float32's tolerance). Both devices evaluate the same formula at the same
// inputs, so they differ by the sum of their math libraries' errors. CUDA documents its float32
// functions' maximum errors (CUDA Math API, "Mathematical Functions"): expf 2 ulp, logf 1,
// sinf/cosf 2, tanhf 2, erff 2, powf 4; division and sqrtf correctly rounded. The CPU's
// float32 exp and tanh are within 1 ulp, its erf within 7 (tensor/functors/vec_math.h), libm
// within 1. A float32 ulp is at most 2^-23 of the value, so one call differs by at most
// 9 ulps (erf: 2 + 7), 1.1e-6 of it, and composite ops (gelu, silu, softplus, ...) chain a few calls:
// rtol 1e-5 (84 ulps at that spacing). Where an intermediate cancels (1 + erf(x) for x near
// -3 in gelu) its few ulps, at most 2^-22 each for intermediates below 4, become absolute
// errors of a result near 0: atol 2e-6. float64's tolerances are far above the 1-2 ulp
// (2^-52 each) of its libraries. A 16-bit result may round one step apart (2^-10 of the
// value in float16, 2^-7 in bfloat16): rtol just above that. Integers and bool: exact.
inline Tolerance elementwise_tolerance(DType result) {
  switch (result) {
    case DType::Float32: return {1e-5, 2e-6};
    case DType::Float64: return {1e-12, 1e-14};
    case DType::Float16: return {2e-3, 1e-5};
    case DType::BFloat16: return {1.6e-2, 1e-5};
    default: return {0, 0};
  }
}

// A tolerance chosen by the dtype of the result it applies to.
using ToleranceFor = std::function<Tolerance(DType result)>;

// `gpu` (on the GPU, or the simulated device in this file's own test) equals `cpu` (on the
// host) in shape and dtype, and element by element within bound(i, cpu's element i in float64):
// NaN where NaN, equal infinities. Reports the first mismatch with its bound, how many elements
// differ and the largest difference. A mismatch fails the test case but does not end it, so
// one run on a lent GPU reports every comparison that fails, not only the first.
inline void require_elements_within(const Tensor& gpu, const Tensor& cpu,
                                    const std::function<double(size_t i, double want)>& bound) {
  REQUIRE_FALSE(gpu.is_cpu());
  REQUIRE(cpu.is_cpu());
  REQUIRE(gpu.sizes() == cpu.sizes());
  REQUIRE(gpu.dtype() == cpu.dtype());
  // Converted on the host, so the comparison does not rely on the GPU's conversions.
  std::vector<double> got = native::to(on_cpu(gpu), kCPU, kFloat64).to_vector<double>();
  std::vector<double> want = native::to(cpu, kCPU, kFloat64).to_vector<double>();
  size_t first = 0, mismatches = 0;
  double max_difference = 0.0;  // over the mismatches (a NaN difference does not count)
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::abs(g - w) <= bound(i, w);
    if (ok) continue;
    if (mismatches++ == 0) first = i;
    max_difference = std::max(max_difference, std::abs(g - w));
  }
  INFO("element " << first << " of " << cpu.describe() << ": GPU " << got[first] << ", CPU " << want[first]
                  << ", allowed difference " << (got.empty() ? 0.0 : bound(first, want[first])) << "; " << mismatches
                  << " of " << got.size() << " elements differ beyond their bound, by at most " << max_difference);
  CHECK(mismatches == 0);
}

// require_elements_within with the bound atol + rtol |want|.
inline void require_matches(const Tensor& gpu, const Tensor& cpu, Tolerance tol) {
  INFO("rtol " << tol.rtol << ", atol " << tol.atol);
  require_elements_within(gpu, cpu, [&](size_t, double want) { return tol.atol + tol.rtol * std::abs(want); });
}

// ||got - want|| / ||want|| (||got|| when want is all zeros), with `got` (any device, any
// floating dtype) brought to the host in float64 and `want` a float64 host tensor. Sub's alpha
// is params.a and must be given: with the default params native::binary(Sub, a, b) computes
// a - 0 * b, which once made this error read 1.0 for every correct GPU result.
inline double relative_error(const Tensor& got, const Tensor& want64) {
  REQUIRE(want64.is_cpu());
  REQUIRE(want64.dtype() == kFloat64);
  REQUIRE(got.sizes() == want64.sizes());
  Tensor g = native::to(got, kCPU, kFloat64);
  Tensor diff = native::binary(BinaryOp::Sub, g, want64, OpParams{1.0});
  double num = native::reduce(ReduceOp::Norm, diff, {}, false, OpParams{2.0}).item<double>();
  double den = native::reduce(ReduceOp::Norm, want64, {}, false, OpParams{2.0}).item<double>();
  REQUIRE_FALSE(std::isnan(num));
  return den == 0 ? num : num / den;
}

inline void require_matches(const Tensor& gpu, const Tensor& cpu) {
  require_matches(gpu, cpu, elementwise_tolerance(cpu.dtype()));
}

// Runs `op` on CPU inputs and on their copies on `device`: either both throw brisk::Error, or
// both succeed with results that match within `tolerance` of the result's dtype (which, for
// ops such as exp of integers or integer means, is not the inputs').
inline void require_same_behavior(const std::function<Tensor(const std::vector<Tensor>&)>& op,
                                  const std::vector<Tensor>& cpu_inputs,
                                  const ToleranceFor& tolerance = elementwise_tolerance, Device device = kCuda) {
  std::vector<Tensor> device_inputs;
  for (const Tensor& t : cpu_inputs) device_inputs.push_back(native::to(t, device, t.dtype()));
  Tensor want;
  std::string cpu_error;
  try {
    want = op(cpu_inputs);
  } catch (const Error& e) {
    cpu_error = e.what();
  }
  if (!cpu_error.empty()) {
    INFO("the CPU refused: " << cpu_error);
    REQUIRE_THROWS_AS(op(device_inputs), Error);
    return;
  }
  Tensor got = op(device_inputs);
  require_matches(got, want, tolerance(want.dtype()));
}

inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes{kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kBFloat16, kFloat16};
  return dtypes;
}

}  // namespace brisk::testing
