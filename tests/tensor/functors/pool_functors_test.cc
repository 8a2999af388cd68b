// The per-element pooling arithmetic of tensor/functors/pool.h at bfloat16 and float16, as
// cuda/pool.cu runs it on 16-bit tensors (the CPU backend widens those to float32 instead),
// here on the CPU: every forward output and every gradient equals, bit for bit, the float32
// function on the same rounded values, rounded once; its argmax is the float32 one, and a
// NaN still wins a max window.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "tensor/functors/pool.h"

namespace brisk {
namespace {

using functors::PoolPlane;

struct PlaneCase {
  int64_t in_h, in_w;
  Pool2dParams params;
};

// Windows of every kind, on planes (height, width): {kernel, stride, padding, dilation,
// ceil_mode}.
const std::vector<PlaneCase>& plane_cases() {
  static const std::vector<PlaneCase> cases{
      {28, 28, {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false}},  // plain
      {7, 5, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, true}},     // padding, ceil mode
      {7, 9, {{2, 3}, {1, 2}, {0, 1}, {2, 2}, false}},    // dilation
      {9, 9, {{3, 3}, {1, 1}, {1, 1}, {1, 1}, false}},    // overlapping windows
      {6, 11, {{4, 2}, {3, 1}, {2, 1}, {1, 1}, true}},    // uneven, ceil mode
      {56, 56, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false}},  // a ResNet stem
  };
  return cases;
}

PoolPlane plane_of(const PlaneCase& c) {
  const Pool2dParams& q = c.params;
  int64_t out_h = window_output_size(c.in_h, q.kernel[0], q.stride[0], q.padding[0], q.dilation[0], q.ceil_mode);
  int64_t out_w = window_output_size(c.in_w, q.kernel[1], q.stride[1], q.padding[1], q.dilation[1], q.ceil_mode);
  return functors::pool_plane(q, c.in_h, c.in_w, out_h, out_w);
}

// `n` values of Low drawn uniformly from [-2, 2) (rounded to Low), and the same values in
// float32.
template <typename Low>
struct Values {
  std::vector<Low> low;
  std::vector<float> wide;
};

template <typename Low>
Values<Low> random_values(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  Values<Low> v;
  for (int64_t i = 0; i < n; ++i) {
    v.low.push_back(Low(uniform(gen)));
    v.wide.push_back(static_cast<float>(v.low.back()));
  }
  return v;
}

// Counts the elements whose 16-bit result differs from the float32 one rounded, and keeps
// the first for the report.
struct Mismatches {
  int64_t count = 0;
  int64_t first = -1;
  float got = 0, want = 0;

  template <typename Low>
  void check(int64_t element, Low got_low, float want_wide) {
    if (got_low.bits == Low(want_wide).bits) return;
    if (count++ == 0) {
      first = element;
      got = static_cast<float>(got_low);
      want = want_wide;
    }
  }
  void require_none(const char* what) const {
    INFO(what << ": " << count << " elements differ, the first " << first << ": " << got << " against float32 "
              << want);
    REQUIRE(count == 0);
  }
};

template <typename Low>
void check_max_pool(const PoolPlane& p, uint32_t seed) {
  Values<Low> x = random_values<Low>(p.in_h * p.in_w, seed);
  Mismatches values;
  int64_t index_mismatches = 0;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    for (int64_t ox = 0; ox < p.out_w; ++ox) {
      int64_t index = -1, index_wide = -1;
      Low got = functors::max_pool_at(p, x.low.data(), oy, ox, index);
      float want = functors::max_pool_at(p, x.wide.data(), oy, ox, index_wide);
      values.check(oy * p.out_w + ox, got, want);
      index_mismatches += index != index_wide;
    }
  }
  values.require_none("max_pool_at");
  CHECK(index_mismatches == 0);
}

// An average pooling's forward, forward(x, oy, ox) for each output, and its gradient,
// backward(grad_out, iy, ix) for each input element, at Low against float32.
template <typename Low, typename Forward, typename Backward>
void check_average(const PoolPlane& p, uint32_t seed, const Forward& forward, const Backward& backward) {
  Values<Low> x = random_values<Low>(p.in_h * p.in_w, seed);
  Values<Low> grad = random_values<Low>(p.out_h * p.out_w, seed + 1);
  Mismatches forward_mismatches, backward_mismatches;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    for (int64_t ox = 0; ox < p.out_w; ++ox) {
      forward_mismatches.check(oy * p.out_w + ox, forward(x.low.data(), oy, ox), forward(x.wide.data(), oy, ox));
    }
  }
  for (int64_t iy = 0; iy < p.in_h; ++iy) {
    for (int64_t ix = 0; ix < p.in_w; ++ix) {
      backward_mismatches.check(iy * p.in_w + ix, backward(grad.low.data(), iy, ix),
                                backward(grad.wide.data(), iy, ix));
    }
  }
  forward_mismatches.require_none("forward");
  backward_mismatches.require_none("backward");
}

TEMPLATE_TEST_CASE("16-bit max pooling is the float32 maximum and argmax of the rounded values", "", BFloat16, Half) {
  uint32_t seed = 10;
  for (const PlaneCase& c : plane_cases()) {
    INFO(c.in_h << "x" << c.in_w << " kernel " << c.params.kernel[0] << "x" << c.params.kernel[1]);
    check_max_pool<TestType>(plane_of(c), ++seed);
  }
}

TEMPLATE_TEST_CASE("a NaN wins a 16-bit max window, a later NaN over an earlier one", "", BFloat16, Half) {
  PoolPlane p = plane_of({3, 3, {{3, 3}, {1, 1}, {0, 0}, {1, 1}, false}});
  std::vector<TestType> x(9, TestType(1.0f));
  x[4] = TestType(NAN);
  x[6] = TestType(NAN);
  x[8] = TestType(5.0f);
  int64_t index = -1;
  CHECK(std::isnan(static_cast<float>(functors::max_pool_at(p, x.data(), 0, 0, index))));
  CHECK(index == 6);
}

TEMPLATE_TEST_CASE("16-bit average pooling and its gradient are float32's on the rounded values, rounded once", "",
                   BFloat16, Half) {
  uint32_t seed = 100;
  for (const PlaneCase& c : plane_cases()) {
    for (bool include_pad : {true, false}) {
      for (int64_t divisor : {0, 5}) {
        PlaneCase average = c;
        average.params.dilation = {1, 1};
        average.params.count_include_pad = include_pad;
        average.params.divisor_override = divisor;
        INFO(c.in_h << "x" << c.in_w << " kernel " << c.params.kernel[0] << "x" << c.params.kernel[1] << " include_pad "
                    << include_pad << " divisor " << divisor);
        PoolPlane p = plane_of(average);
        check_average<TestType>(
            p, seed += 2, [&](const auto* x, int64_t oy, int64_t ox) { return functors::avg_pool_at(p, x, oy, ox); },
            [&](const auto* g, int64_t iy, int64_t ix) { return functors::avg_pool_backward_at(p, g, iy, ix); });
      }
    }
  }
}

TEMPLATE_TEST_CASE("16-bit adaptive average pooling and its gradient are float32's on the rounded values", "", BFloat16,
                   Half) {
  uint32_t seed = 200;
  const std::vector<std::array<int64_t, 4>> sizes{
      {7, 5, 3, 2}, {6, 6, 1, 1}, {3, 5, 4, 7}, {28, 28, 1, 1}, {10, 13, 10, 13}};
  for (const auto& [in_h, in_w, out_h, out_w] : sizes) {
    INFO(in_h << "x" << in_w << " to " << out_h << "x" << out_w);
    PoolPlane p = functors::pool_plane({}, in_h, in_w, out_h, out_w);
    check_average<TestType>(
        p, seed += 2,
        [&](const auto* x, int64_t oy, int64_t ox) { return functors::adaptive_avg_pool_at(p, x, oy, ox); },
        [&](const auto* g, int64_t iy, int64_t ix) { return functors::adaptive_avg_pool_backward_at(p, g, iy, ix); });
  }
}

}  // namespace
}  // namespace brisk
