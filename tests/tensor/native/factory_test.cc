// Factories and the host accessors item() / to_vector().
#include <catch2/catch.hpp>

#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

TEST_CASE("empty, full, zeros and ones", "[factory]") {
  Tensor e = native::empty({2, 3}, kFloat64);
  CHECK(e.sizes() == Shape{2, 3});
  CHECK(e.strides() == Shape{3, 1});
  CHECK(e.dtype() == kFloat64);
  CHECK(e.is_cpu());
  CHECK(e.storage()->nbytes() == 6 * sizeof(double));
  CHECK_THROWS_WITH(native::empty({2, -1}), Contains("empty") && Contains("[2, -1]"));

  CHECK(native::full({2, 2}, 2.5, kFloat32).to_vector<float>() == std::vector<float>(4, 2.5f));
  CHECK(native::zeros({3}, kInt64).to_vector<int64_t>() == std::vector<int64_t>{0, 0, 0});
  CHECK(native::ones({2}, kBool).to_vector<bool>() == std::vector<bool>{true, true});
  CHECK(native::full({}, 7, kInt32).item<int32_t>() == 7);

  Tensor leaf = native::ones({2}, TensorOptions().requires_grad(true));
  CHECK(leaf.requires_grad());
  CHECK(leaf.is_leaf());
  CHECK_FALSE(native::ones({2}).requires_grad());

  // PyTorch's preserve_format: a dense source's strides, here the transpose's.
  Tensor like = native::empty_like(native::transpose(native::zeros({2, 3}, kInt32), 0, 1));
  CHECK(like.sizes() == Shape{3, 2});
  CHECK(like.dtype() == kInt32);
  CHECK(like.strides() == Shape{1, 3});
  CHECK(native::empty_like(like, MemoryFormat::Contiguous).is_contiguous());
}

TEST_CASE("arange follows PyTorch's length and value rules", "[factory]") {
  CHECK(native::arange(0, 5, 1, kInt64).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(native::arange(10, 0, -3, kInt64).to_vector<int64_t>() == std::vector<int64_t>{10, 7, 4, 1});
  // torch.arange(0, 1, 0.1): 10 float32 values computed as float64 0.1 * i.
  std::vector<float> tenths = native::arange(0, 1, 0.1, kFloat32).to_vector<float>();
  REQUIRE(tenths.size() == 10);
  for (int i = 0; i < 10; ++i) CHECK(tenths[i] == static_cast<float>(0.1 * i));
  CHECK(native::arange(0, 0.3, 0.1, kFloat32).numel() == 3);
  CHECK(native::arange(-1.5, 1, 0.5, kFloat64).to_vector<double>() == std::vector<double>{-1.5, -1, -0.5, 0, 0.5});
  // Integer dtypes: length from the float bounds, values from the truncated start and step.
  CHECK(native::arange(0, 5.5, 1, kInt64).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(native::arange(0, 10, 2.5, kInt32).to_vector<int64_t>() == std::vector<int64_t>{0, 2, 4, 6});
  CHECK(native::arange(-0.5, 3, 1, kInt64).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(native::arange(3, 3, 1, kInt64).numel() == 0);

  CHECK_THROWS_WITH(native::arange(0, 5, 0, kInt64), Contains("step must be nonzero"));
  CHECK_THROWS_WITH(native::arange(0, 5, -1, kInt64), Contains("inconsistent with step sign"));
}

TEST_CASE("scalar_tensor and from_vector", "[factory]") {
  Tensor s = native::scalar_tensor(3.5, kFloat64);
  CHECK(s.dim() == 0);
  CHECK(s.item<double>() == 3.5);
  CHECK(native::scalar_tensor(true, kBool).item<bool>());

  Tensor f = native::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, kFloat32);
  CHECK(f.sizes() == Shape{2, 3});
  CHECK(f.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  // The options' dtype wins over the element type.
  Tensor cast = native::from_vector(std::vector<double>{1.75, -2.5}, {2}, kInt64);
  CHECK(cast.dtype() == kInt64);
  CHECK(cast.to_vector<int64_t>() == std::vector<int64_t>{1, -2});
  CHECK(native::from_vector(std::vector<bool>{true, false}, {2}, kBool).to_vector<bool>() ==
        std::vector<bool>{true, false});
  CHECK(native::from_vector(std::vector<uint8_t>{1, 255}, {2}, kUInt8).to_vector<int32_t>() ==
        std::vector<int32_t>{1, 255});
  CHECK(native::from_vector(std::vector<int32_t>{-4}, {}, kInt32).item<int64_t>() == -4);
  CHECK_THROWS_WITH(native::from_vector(std::vector<float>{1, 2, 3}, {2, 2}, kFloat32),
                    Contains("3 values") && Contains("[2, 2]"));
}

TEST_CASE("to_vector and item convert and follow logical order", "[factory]") {
  Tensor t = native::from_vector(std::vector<int64_t>{1, 2, 3, 4, 5, 6}, {2, 3}, kInt64);
  CHECK(native::transpose(t, 0, 1).to_vector<double>() == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(native::select(t, 1, 2).to_vector<float>() == std::vector<float>{3, 6});
  CHECK(native::from_vector(std::vector<float>{0, 0.5f, -2}, {3}, kFloat32).to_vector<bool>() ==
        std::vector<bool>{false, true, true});
  CHECK(native::select(native::select(t, 0, 1), 0, 0).item<float>() == 4.0f);
  CHECK_THROWS_WITH(t.item<int64_t>(), Contains("item") && Contains("[2, 3]"));
}

TEST_CASE("from_vector, to_vector and item for bfloat16 and float16", "[factory]") {
  // 1.5 and -3 are exact in both formats; 0.1 rounds to each format's nearest value.
  Tensor b = native::from_vector(std::vector<BFloat16>{1.5f, -3.0f}, {2}, kBFloat16);
  CHECK(b.dtype() == kBFloat16);
  CHECK(b.to_vector<float>() == std::vector<float>{1.5f, -3.0f});
  CHECK(static_cast<float>(native::full({}, 0.1, kBFloat16).item<BFloat16>()) == static_cast<float>(BFloat16(0.1f)));
  Tensor h = native::from_vector(std::vector<Half>{1.5f, -3.0f}, {2}, kFloat32);
  CHECK(h.dtype() == kFloat32);  // the options' dtype wins
  std::vector<Half> back = h.to_vector<Half>();
  CHECK(static_cast<float>(back[0]) == 1.5f);
  CHECK(static_cast<float>(back[1]) == -3.0f);
  CHECK(static_cast<float>(native::full({}, 0.1, kFloat16).item<Half>()) == static_cast<float>(Half(0.1f)));
}
