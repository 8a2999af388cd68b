// The vectorizable float32 exp, tanh and erf of tensor/functors/vec_math.h against libm in
// float64, over a sweep of the whole float range and at the special values.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "tensor/functors/vec_math.h"

namespace brisk {
namespace {

// Distance in units in the last place between two floats (0 when both are NaN).
int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  int32_t ia, ib;
  std::memcpy(&ia, &a, sizeof(ia));
  std::memcpy(&ib, &b, sizeof(ib));
  // Map the sign-magnitude bit patterns onto one monotonic integer line.
  int64_t la = ia < 0 ? int64_t(INT32_MIN) - ia : ia;
  int64_t lb = ib < 0 ? int64_t(INT32_MIN) - ib : ib;
  return la > lb ? la - lb : lb - la;
}

template <typename F, typename Ref>
int64_t worst_ulp(F f, Ref ref) {
  int64_t worst = 0;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) {
    auto bits = static_cast<uint32_t>(u);
    float x;
    std::memcpy(&x, &bits, sizeof(x));
    worst = std::max(worst, ulp_distance(f(x), static_cast<float>(ref(static_cast<double>(x)))));
  }
  return worst;
}

TEST_CASE("exp_f32, tanh_f32 and erf_f32 stay within their ulp bounds over the float range") {
  REQUIRE(worst_ulp(exp_f32, [](double x) { return std::exp(x); }) <= 1);
  REQUIRE(worst_ulp(tanh_f32, [](double x) { return std::tanh(x); }) <= 1);
  REQUIRE(worst_ulp(erf_f32, [](double x) { return std::erf(x); }) <= 7);
}

TEST_CASE("special values") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  REQUIRE(exp_f32(inf) == inf);
  REQUIRE(exp_f32(-inf) == 0.0f);
  REQUIRE(exp_f32(88.73f) == inf);
  REQUIRE(exp_f32(88.72f) == static_cast<float>(std::exp(static_cast<double>(88.72f))));
  REQUIRE(exp_f32(-103.0f) == static_cast<float>(std::exp(-103.0)));  // subnormal
  REQUIRE(exp_f32(-105.0f) == 0.0f);
  REQUIRE(std::isnan(exp_f32(nan)));
  REQUIRE(tanh_f32(inf) == 1.0f);
  REQUIRE(tanh_f32(-inf) == -1.0f);
  REQUIRE(std::signbit(tanh_f32(-0.0f)));
  REQUIRE(std::isnan(tanh_f32(nan)));
  REQUIRE(erf_f32(inf) == 1.0f);
  REQUIRE(erf_f32(-inf) == -1.0f);
  REQUIRE(std::isnan(erf_f32(nan)));
  REQUIRE(vselect(true, 1.0f, 2.0f) == 1.0f);
  REQUIRE(vselect(false, 1.0, 2.0) == 2.0);
}

}  // namespace
}  // namespace brisk
