// The native Lerp row, out of place and in place (a number weight): values against PyTorch 2.x on the same inputs,
// both sides of PyTorch's two-sided formula, broadcasting, and its dtype rules.
#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;
using testing::require_close;

const std::vector<float> kStart = {1.0f, -2.0f, 0.5f, 3.0f};
const std::vector<float> kEnd = {3.0f, 4.0f, -0.25f, 3.0f};

Tensor native_lerp(const Tensor& start, const Tensor& end, double weight) {
  return native::binary(BinaryOp::Lerp, start, end, {weight});
}

TEST_CASE("lerp matches PyTorch for weights on both sides of 0.5") {
  Tensor start = make(kStart, {4});
  Tensor end = make(kEnd, {4});
  const std::pair<double, std::vector<double>> cases[] = {
      {0.3, {1.600000023841858, -0.19999992847442627, 0.2749999761581421, 3.0}},
      {0.1, {1.2000000476837158, -1.399999976158142, 0.42500001192092896, 3.0}},
      {0.75, {2.5, 2.5, -0.0625, 3.0}},
      {-0.5, {0.0, -5.0, 0.875, 3.0}},
  };
  for (const auto& [weight, expected] : cases) {
    INFO("weight " << weight);
    Tensor out = native_lerp(start, end, weight);
    REQUIRE(out.dtype() == kFloat32);
    require_close(out, expected);
  }
}

TEST_CASE("lerp with weight 1 gives exactly end") {
  Tensor end = make(std::vector<float>{0.1f, 3.3f, -7.7f}, {3});
  Tensor out = native_lerp(make(std::vector<float>{0.7f, -1.1f, 1e6f}, {3}), end, 1.0);
  REQUIRE(out.to_vector<float>() == end.to_vector<float>());
}

TEST_CASE("lerp broadcasts, and lerp_ writes into self") {
  Tensor start = make(std::vector<double>{0.1, 0.1, 0.1, 0.7, 0.7, 0.7}, {2, 3});
  Tensor end = make(std::vector<double>{1.0, 2.0, 3.0}, {3});
  const std::vector<double> expected = {0.64, 1.24, 1.84, 0.88, 1.48, 2.08};
  require_close(native_lerp(start, end, 0.6), expected, 1e-15);
  Tensor& same = native::binary_(BinaryOp::Lerp, start, end, {0.6});
  REQUIRE(same.is_same(start));
  require_close(start, expected, 1e-15);
}

TEST_CASE("lerp needs one floating point dtype") {
  Tensor f32 = make(kStart, {4});
  Tensor f64 = native::to(f32, kCPU, kFloat64);
  REQUIRE_THROWS_WITH(native_lerp(f32, f64, 0.5),
                      Catch::Contains("lerp: expected dtype float32 for `end` but got float64"));
  REQUIRE_THROWS_WITH(native::binary_(BinaryOp::Lerp, f32, f64, {0.5}), Catch::Contains("lerp: expected dtype float32"));
  Tensor ints = make(std::vector<int64_t>{1, 2}, {2});
  REQUIRE_THROWS_WITH(native_lerp(ints, ints, 0.5), Catch::Contains("lerp: expected floating point tensors"));
}

}  // namespace
}  // namespace brisk
