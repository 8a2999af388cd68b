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

// Every element of `t` (read as float64) within `tol` of `expected`; NaN matches NaN.
inline void require_close(const Tensor& t, const std::vector<double>& expected, double tol = 1e-6) {
  std::vector<double> got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    if (std::isnan(expected[i])) {
      REQUIRE(std::isnan(got[i]));
    } else if (std::isinf(expected[i])) {
      REQUIRE(got[i] == expected[i]);
    } else {
      REQUIRE(std::abs(got[i] - expected[i]) <= tol * std::max(1.0, std::abs(expected[i])));
    }
  }
}

}  // namespace brisk::testing
