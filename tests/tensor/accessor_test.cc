// Tensor::accessor: reads and writes through the strides, and its checks.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "tensor/accessor.h"

namespace brisk {
namespace {

TEST_CASE("accessor reads and writes a tensor's elements", "[accessor]") {
  Tensor m = zeros({2, 3});
  auto a = m.accessor<float, 2>();
  CHECK(a.size(0) == 2);
  CHECK(a.size(1) == 3);
  CHECK(a.stride(0) == 3);
  CHECK(a.stride(1) == 1);
  for (int64_t i = 0; i < a.size(0); ++i) {
    for (int64_t j = 0; j < a.size(1); ++j) a[i][j] = static_cast<float>(i * 10 + j);
  }
  CHECK(m.to_vector<float>() == std::vector<float>{0, 1, 2, 10, 11, 12});
  CHECK(a[1][2] == 12.0f);
}

TEST_CASE("accessor follows the strides of a view", "[accessor]") {
  Tensor base = arange(12, kInt64).reshape({3, 4});
  Tensor view = base.t().slice(0, 1, std::nullopt, 2);  // columns 1 and 3 of base, as rows
  auto a = view.accessor<int64_t, 2>();
  CHECK(a.size(0) == 2);
  CHECK(a.size(1) == 3);
  CHECK(a[0][2] == 9);
  CHECK(a[1][0] == 3);
  a[1][1] = -1;
  CHECK(base[1][3].item<int64_t>() == -1);
  auto row = a[1];
  CHECK(row.size(0) == 3);
  CHECK(row.stride(0) == 4);
  CHECK(row[2] == 11);
}

TEST_CASE("accessor of one dim and of a const element type", "[accessor]") {
  Tensor v = tensor({1.5, 2.5, 3.5}, kFloat64);
  auto a = v.accessor<const double, 1>();
  CHECK(a[2] == 3.5);
  CHECK(a.sizes().size() == 1);
}

TEST_CASE("accessor names a wrong dtype, dim count or device", "[accessor]") {
  Tensor m = zeros({2, 3});
  CHECK_THROWS_WITH((m.accessor<double, 2>()), Catch::Contains("float64") && Catch::Contains("float32"));
  CHECK_THROWS_WITH((m.accessor<float, 3>()), Catch::Contains("expected 3 dims") && Catch::Contains("has 2"));
  Tensor on_device = zeros({2}, sim_device(0));
  CHECK_THROWS_WITH((on_device.accessor<float, 1>()), Catch::Contains("sim:0") && Catch::Contains("cpu()"));
}

}  // namespace
}  // namespace brisk
