#pragma once
// Small helpers for tests of native ops: build tensors from literals and compare results.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tensor/native/ops.h"

namespace brisk::testing {

template <typename T>
Tensor make(const std::vector<T>& values, const Shape& shape, DType dtype = dtype_of<T>::value) {
  return native::from_vector<T>(values, shape, TensorOptions(dtype));
}

// Every element of `t` (read as float64) within `tol` of `expected`, relative to the larger
// of 1 and |expected|; NaN matches NaN and infinities must be equal. Reports the first
// mismatch.
inline void require_close(const Tensor& t, const std::vector<double>& expected, double tol = 1e-6) {
  std::vector<double> got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double e = expected[i], g = got[i];
    bool ok = std::isnan(e)   ? std::isnan(g)
              : std::isinf(e) ? g == e
                              : std::abs(g - e) <= tol * std::max(1.0, std::abs(e));
    if (!ok) {
      INFO("element " << i << " of " << t.describe() << ": got " << g << ", expected " << e);
      REQUIRE(ok);
    }
  }
}

}  // namespace brisk::testing
