// from_blob and linspace, the factories a libtorch user reaches for (their values against
// PyTorch are in tests/fixtures/ops.json).
#include <catch2/catch.hpp>

#include "autograd/ops.h"

namespace brisk {
namespace {

TEST_CASE("from_blob wraps the caller's memory without copying it", "[from_blob]") {
  std::vector<float> buffer{1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buffer.data(), {2, 3});
  CHECK(t.dtype() == kFloat32);
  CHECK(t.sizes() == Shape{2, 3});
  CHECK(t.raw_data() == buffer.data());
  t.mul_(2);
  CHECK(buffer == std::vector<float>{2, 4, 6, 8, 10, 12});
  buffer[5] = -1;
  CHECK(t[1][2].item<float>() == -1.0f);
  t.index_put_({0, 1}, 7.0);
  CHECK(buffer[1] == 7.0f);
}

TEST_CASE("from_blob with strides and options", "[from_blob]") {
  std::vector<double> buffer{0, 1, 2, 3, 4, 5};
  Tensor column = from_blob(buffer.data(), {2}, {3}, kFloat64);
  CHECK(column.to_vector<double>() == std::vector<double>{0, 3});
  Tensor transposed = from_blob(buffer.data(), {3, 2}, {1, 3}, TensorOptions(kDouble).requires_grad(true));
  CHECK(transposed.requires_grad());
  CHECK(transposed.to_vector<double>() == std::vector<double>{0, 3, 1, 4, 2, 5});
  std::vector<int64_t> ids{7, 8, 9};
  CHECK(from_blob(ids.data(), {3}, kLong).sum().item<int64_t>() == 24);
}

TEST_CASE("from_blob calls the deleter when the last tensor using the memory goes", "[from_blob]") {
  auto* data = new float[4]{1, 2, 3, 4};
  int calls = 0;
  void* freed = nullptr;
  {
    Tensor t = from_blob(data, {4}, [&](void* p) {
      ++calls;
      freed = p;
      delete[] static_cast<float*>(p);
    });
    Tensor view = t.slice(0, 1, 3);
    t = Tensor();
    CHECK(calls == 0);
    CHECK(view.sum().item<float>() == 5.0f);
  }
  CHECK(calls == 1);
  CHECK(freed == data);
  std::vector<float> owned(6, 1.0f);
  int strided_calls = 0;
  from_blob(owned.data(), {2, 3}, {3, 1}, [&](void*) { ++strided_calls; });
  CHECK(strided_calls == 1);
}

TEST_CASE("from_blob refuses negative sizes and mismatched strides", "[from_blob]") {
  float x = 0;
  CHECK_THROWS_WITH(from_blob(&x, {-1}), Catch::Contains("from_blob") && Catch::Contains("-1"));
  CHECK_THROWS_WITH(from_blob(&x, {1, 1}, {1}), Catch::Contains("2 sizes") && Catch::Contains("1 strides"));
  CHECK_THROWS_WITH(from_blob(&x, {2}, {-1}), Catch::Contains("negative stride"));
}

TEST_CASE("linspace counts from both ends and checks its steps", "[linspace]") {
  CHECK(linspace(0, 1, 5).to_vector<float>() == std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1});
  CHECK(linspace(3, 9, 1, kFloat64).to_vector<double>() == std::vector<double>{3});
  CHECK(linspace(3, 9, 0).numel() == 0);
  CHECK(linspace(0, 10, 3, kLong).to_vector<int64_t>() == std::vector<int64_t>{0, 5, 10});
  // The last value is exactly `end` (computed from it), the first exactly `start`.
  Tensor x = linspace(-3.7, 2.9, 1000, kFloat64);
  CHECK(x[0].item<double>() == -3.7);
  CHECK(x[-1].item<double>() == 2.9);
  CHECK(linspace(0, 1, 4, TensorOptions(kFloat32).requires_grad(true)).requires_grad());
  CHECK_THROWS_WITH(linspace(0, 1, -1), Catch::Contains("linspace") && Catch::Contains("-1"));
}

TEST_CASE("arange's libtorch overloads", "[arange]") {
  CHECK(arange(4).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(arange(4, kFloat).dtype() == kFloat32);
  CHECK(arange(1, 4).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
  CHECK(arange(1, 4, TensorOptions(kDouble)).dtype() == kFloat64);
  CHECK(arange(0, 1, 0.25).to_vector<float>() == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
}

}  // namespace
}  // namespace brisk
