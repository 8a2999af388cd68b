// Native copies and conversions: copy_ between all eight dtypes (values from PyTorch 2.x's
// Tensor.to on the same inputs), strided and broadcast copies, overlap, contiguous, clone, to.
#include <cmath>
#include <limits>

#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;
using testing::require_close;

constexpr DType f32 = kFloat32, f64 = kFloat64, i64 = kInt64, i32 = kInt32, u8 = kUInt8, b8 = kBool, bf16 = kBFloat16,
                f16 = kFloat16;

struct Source {
  DType dtype;
  std::vector<double> values;  // exactly representable in dtype
};

struct Conversion {
  DType from;
  DType to;
  std::vector<double> expected;
};

TEST_CASE("conversions between all eight dtypes match PyTorch") {
  // torch.tensor([-2.7, -1, 0, 0.5, 1.5, 2.5, 100.25, pi], dtype=float64).to(from) for each from.
  const Source sources[] = {
      {f32, {-2.7000000476837158, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.1415927410125732}},
      {f64, {-2.7000000000000002, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.14159265358979}},
      {i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {bf16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {f16, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
  };
  // Floats truncate toward zero into integers; negative floats wrap into uint8 through int64;
  // anything nonzero is true; 16-bit floats round to nearest even.
  const Conversion conversions[] = {
      {f32, f32, {-2.7000000476837158, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.1415927410125732}},
      {f32, f64, {-2.7000000476837158, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.1415927410125732}},
      {f32, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f32, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f32, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {f32, b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {f32, bf16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {f32, f16, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
      {f64, f32, {-2.7000000476837158, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.1415927410125732}},
      {f64, f64, {-2.7000000000000002, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.14159265358979}},
      {f64, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f64, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f64, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {f64, b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {f64, bf16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {f64, f16, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
      {i64, f32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i64, f64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i64, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i64, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i64, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {i64, b8, {1, 1, 0, 0, 1, 1, 1, 1}},
      {i64, bf16, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i64, f16, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, f32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, f64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {i32, b8, {1, 1, 0, 0, 1, 1, 1, 1}},
      {i32, bf16, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {i32, f16, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {u8, f32, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, f64, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, i64, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, i32, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, b8, {1, 1, 0, 0, 1, 1, 1, 1}},
      {u8, bf16, {254, 255, 0, 0, 1, 2, 100, 3}},
      {u8, f16, {254, 255, 0, 0, 1, 2, 100, 3}},
      {b8, f32, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, f64, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, i64, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, i32, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, u8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, bf16, {1, 1, 0, 1, 1, 1, 1, 1}},
      {b8, f16, {1, 1, 0, 1, 1, 1, 1, 1}},
      {bf16, f32, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {bf16, f64, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {bf16, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {bf16, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {bf16, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {bf16, b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {bf16, bf16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {bf16, f16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {f16, f32, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
      {f16, f64, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
      {f16, i64, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f16, i32, {-2, -1, 0, 0, 1, 2, 100, 3}},
      {f16, u8, {254, 255, 0, 0, 1, 2, 100, 3}},
      {f16, b8, {1, 1, 0, 1, 1, 1, 1, 1}},
      {f16, bf16, {-2.703125, -1, 0, 0.5, 1.5, 2.5, 100, 3.140625}},
      {f16, f16, {-2.69921875, -1, 0, 0.5, 1.5, 2.5, 100.25, 3.140625}},
  };
  for (const Conversion& c : conversions) {
    INFO(dtype_name(c.from) << " -> " << dtype_name(c.to));
    const Source* src = nullptr;
    for (const Source& s : sources) {
      if (s.dtype == c.from) src = &s;
    }
    REQUIRE(src != nullptr);
    Tensor from = make<double>(src->values, {8}, c.from);
    Tensor to = native::empty({8}, c.to);
    native::copy_(to, from);
    require_close(to, c.expected, 0.0);
    require_close(native::to(from, kCPU, c.to), c.expected, 0.0);
  }
}

TEST_CASE("16-bit floats round to nearest even and saturate to inf like PyTorch") {
  Tensor x = make<float>({65520, 65519, 2049, 2051, 6e-8f, 1e-8f, 1.00390625f, 1.01171875f}, {8});
  require_close(native::to(x, kCPU, f16),
                {INFINITY, 65504, 2048, 2052, 5.960464477539063e-08, 0, 1.00390625, 1.01171875}, 0.0);
  require_close(native::to(x, kCPU, bf16),
                {65536, 65536, 2048, 2048, 6.007030606269836e-08, 1.0011717677116394e-08, 1.0, 1.015625}, 0.0);
  Tensor special = make<float>({INFINITY, NAN, -0.0f}, {3});
  require_close(native::to(special, kCPU, f16), {INFINITY, NAN, 0.0}, 0.0);
  REQUIRE(native::to(special, kCPU, b8).to_vector<bool>() == std::vector<bool>{true, true, false});
}

TEST_CASE("strided and broadcast copies") {
  SECTION("into a transposed destination") {
    Tensor dst = native::zeros({3, 2});
    Tensor dst_t = native::transpose(dst, 0, 1);  // [2, 3]
    native::copy_(dst_t, make<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
    require_close(dst, {1, 4, 2, 5, 3, 6}, 0.0);
  }
  SECTION("from a strided slice, with conversion") {
    Tensor src = native::slice(make<double>({0, 1, 2, 3, 4, 5, 6, 7}, {8}), 0, 1, 8, 3);  // 1, 4, 7
    Tensor dst = native::empty({3}, i32);
    native::copy_(dst, src);
    REQUIRE(dst.to_vector<int64_t>() == std::vector<int64_t>{1, 4, 7});
  }
  SECTION("a source broadcast to the destination") {
    Tensor dst = native::empty({2, 3}, f64);
    native::copy_(dst, make<float>({1, 2, 3}, {3}));
    require_close(dst, {1, 2, 3, 1, 2, 3}, 0.0);
    native::copy_(dst, make<bool>({true}, {}));
    require_close(dst, {1, 1, 1, 1, 1, 1}, 0.0);
  }
  SECTION("errors") {
    Tensor dst = native::empty({2, 3});
    REQUIRE_THROWS_WITH(native::copy_(dst, native::zeros({2})),
                        Catch::Contains("copy_") && Catch::Contains("[2]") && Catch::Contains("[2, 3]"));
    Tensor expanded = native::expand(native::zeros({1, 3}), {2, 3});
    REQUIRE_THROWS_WITH(native::copy_(expanded, dst), Catch::Contains("copy_") && Catch::Contains("memory location"));
  }
}

TEST_CASE("copy_ between overlapping views reads the source first") {
  Tensor x = make<float>({0, 1, 2, 3, 4}, {5});
  Tensor dst = native::narrow(x, 0, 1, 4);
  native::copy_(dst, native::narrow(x, 0, 0, 4));
  require_close(x, {0, 0, 1, 2, 3}, 0.0);
  native::copy_(x, x);
  require_close(x, {0, 0, 1, 2, 3}, 0.0);
}

TEST_CASE("contiguous, clone and to") {
  Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  REQUIRE(native::contiguous(x).is_same(x));
  Tensor t = native::transpose(x, 0, 1);
  Tensor c = native::contiguous(t);
  REQUIRE(c.is_contiguous());
  REQUIRE(c.storage() != x.storage());
  require_close(c, {1, 4, 2, 5, 3, 6}, 0.0);
  Tensor k = native::clone(x);
  REQUIRE(k.storage() != x.storage());
  native::fill_(k, Scalar(0));
  require_close(x, {1, 2, 3, 4, 5, 6}, 0.0);
  REQUIRE(native::to(x, kCPU, f32).is_same(x));
  Tensor d = native::to(t, kCPU, f64);
  REQUIRE(d.dtype() == f64);
  REQUIRE(d.sizes() == Shape{3, 2});
  require_close(d, {1, 4, 2, 5, 3, 6}, 0.0);
}

TEST_CASE("large copies: the parallel memcpy and the converting loop") {
  const int64_t n = 3 << 20;
  Tensor src = native::arange(0, n, 1, i32);
  Tensor same = native::clone(src);
  Tensor wide = native::to(src, kCPU, i64);
  std::vector<int64_t> a = same.to_vector<int64_t>(), b = wide.to_vector<int64_t>();
  for (int64_t i = 0; i < n; i += 4099) {
    REQUIRE(a[i] == i);
    REQUIRE(b[i] == i);
  }
  REQUIRE(a[n - 1] == n - 1);
  REQUIRE(b[n - 1] == n - 1);
}

}  // namespace
}  // namespace brisk
