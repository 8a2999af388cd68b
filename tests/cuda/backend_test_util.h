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

// The CPU and CUDA math libraries (expf, tanhf, erff, ...) differ by a few ulps; a 16-bit
// result may then round one step apart. Integers and bool must match exactly.
inline Tolerance elementwise_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {1e-5, 2e-6};
    case DType::Float64: return {1e-12, 1e-14};
    case DType::Float16: return {2e-3, 1e-5};
    case DType::BFloat16: return {1.6e-2, 1e-5};
    default: return {0, 0};
  }
}

// `gpu` (on the GPU) equals `cpu` (on the host) in shape and dtype, and element by element
// within `tol`: NaN where NaN, equal infinities. Reports the first mismatch, how many
// elements differ and the largest difference.
inline void require_matches(const Tensor& gpu, const Tensor& cpu, Tolerance tol) {
  REQUIRE(gpu.is_cuda());
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
    bool ok = std::isnan(w)   ? std::isnan(g)
              : std::isinf(w) ? g == w
                              : std::abs(g - w) <= tol.atol + tol.rtol * std::abs(w);
    if (ok) continue;
    if (mismatches++ == 0) first = i;
    max_difference = std::max(max_difference, std::abs(g - w));
  }
  INFO("element " << first << " of " << cpu.describe() << ": GPU " << got[first] << ", CPU " << want[first] << "; "
                  << mismatches << " of " << got.size() << " elements differ, by at most " << max_difference
                  << " (rtol " << tol.rtol << ", atol " << tol.atol << ")");
  REQUIRE(mismatches == 0);
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

// Runs `op` on CPU inputs and on their GPU copies: either both throw brisk::Error, or both
// succeed with matching results.
inline void require_same_behavior(const std::function<Tensor(const std::vector<Tensor>&)>& op,
                                  const std::vector<Tensor>& cpu_inputs, Tolerance tol) {
  std::vector<Tensor> gpu_inputs;
  for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(on_gpu(t));
  Tensor want;
  std::string cpu_error;
  try {
    want = op(cpu_inputs);
  } catch (const Error& e) {
    cpu_error = e.what();
  }
  if (!cpu_error.empty()) {
    INFO("the CPU refused: " << cpu_error);
    REQUIRE_THROWS_AS(op(gpu_inputs), Error);
    return;
  }
  Tensor got = op(gpu_inputs);
  require_matches(got, want, tol);
}

inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes{kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kBFloat16, kFloat16};
  return dtypes;
}

}  // namespace brisk::testing
