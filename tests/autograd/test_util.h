#pragma once
// Inputs for the autograd tests: float64 leaves with chosen values and memory layouts, on
// the test device (tests/test_device.h: the CPU, or the GPU in the gradcheck twins).
#include <catch2/catch.hpp>

#include <utility>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "tests/test_device.h"

namespace brisk::test {

using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;

// Every test draws from one seeded stream, so runs are reproducible.
inline Generator& generator() {
  static Generator gen(20240601);
  return gen;
}

enum class Values {
  Normal,    // standard normal
  Positive,  // in [0.5, 2): for log, sqrt, pow bases
  NonZero,   // magnitude in [0.5, 1.5), either sign: for divisors
};

enum class Layout {
  Contiguous,
  Transposed,  // the last two dims swapped in memory
  Strided,     // every other element of a twice as long last dim
};

// A float64 leaf that requires grad, on the test device. The values are drawn on the CPU, so
// they are the same on every device.
inline Tensor make(const Shape& shape, Values values = Values::Normal, Layout layout = Layout::Contiguous) {
  NoGradGuard no_grad;
  const size_t n = shape.size();
  Shape storage = shape;
  if (layout == Layout::Transposed && n >= 2) std::swap(storage[n - 1], storage[n - 2]);
  if (layout == Layout::Strided && n >= 1) storage[n - 1] *= 2;
  Tensor t;
  switch (values) {
    case Values::Normal: t = randn(storage, kFloat64, &generator()); break;
    case Values::Positive: t = rand(storage, kFloat64, &generator()) * 1.5 + 0.5; break;
    case Values::NonZero:
      t = (rand(storage, kFloat64, &generator()) + 0.5) * sign(randn(storage, kFloat64, &generator()));
      break;
  }
  t = on_test_device(t);
  if (layout == Layout::Transposed && n >= 2) t = t.transpose(-1, -2);
  if (layout == Layout::Strided && n >= 1) t = t.slice(-1, 0, std::nullopt, 2);
  return t.detach().requires_grad_();
}

// The values of a float64 tensor, for exact comparisons.
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

// True when every element of a and b differs by at most `tol`.
inline bool close(const Tensor& a, const Tensor& b, double tol = 1e-9) {
  return a.sizes() == b.sizes() && allclose(a.to(kFloat64), b.to(kFloat64), 0.0, tol);
}

}  // namespace brisk::test
