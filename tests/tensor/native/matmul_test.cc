// mm/bmm/addmm/matmul against values computed with PyTorch and against a plain triple loop.
#include <catch2/catch.hpp>

#include "tensor/generator.h"
#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {

Tensor floats(const std::vector<float>& v, const Shape& shape) { return native::from_vector(v, shape, kFloat32); }

Tensor random(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor t = native::empty(shape, dtype);
  native::uniform_(t, -1.0, 1.0, &gen);
  return t;
}

// [.., M, K] x [.., K, N] for operands already expanded to one batch shape, in float64.
std::vector<double> reference_matmul(const Tensor& a, const Tensor& b) {
  int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  int64_t batches = a.numel() / (M * K);
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>(), out(batches * M * N, 0.0);
  for (int64_t p = 0; p < batches; ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j) out[(p * M + i) * N + j] += x[(p * M + i) * K + k] * y[(p * K + k) * N + j];
  return out;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(tol));
}

const std::vector<float> kA = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f};  // (arange(6) * 0.5 - 1).view(2, 3)
const std::vector<float> kB = {-1.5f, -1.25f, -1.0f, -0.75f, -0.5f, -0.25f,
                               0.0f,  0.25f,  0.5f,  0.75f,  1.0f,  1.25f};  // (arange(12) * 0.25 - 1.5).view(3, 4)
const std::vector<float> kAB = {1.75f, 1.375f, 1.0f, 0.625f, -0.5f, 0.25f, 1.0f, 1.75f};  // torch: a @ b

}  // namespace

TEST_CASE("mm matches PyTorch, with plain and transposed operands", "[matmul]") {
  Tensor a = floats(kA, {2, 3}), b = floats(kB, {3, 4});
  Tensor out = native::mm(a, b);
  CHECK(out.sizes() == Shape{2, 4});
  CHECK(out.to_vector<float>() == kAB);

  // The same matrices stored transposed: Eigen reads them in place in column-major order.
  Tensor at = native::transpose(native::contiguous(native::transpose(a, 0, 1)), 0, 1);
  Tensor bt = native::transpose(native::contiguous(native::transpose(b, 0, 1)), 0, 1);
  REQUIRE(at.stride(0) == 1);
  CHECK(native::mm(at, b).to_vector<float>() == kAB);
  CHECK(native::mm(a, bt).to_vector<float>() == kAB);
  CHECK(native::mm(at, bt).to_vector<float>() == kAB);

  // Neither dim unit-stride: copied before the product.
  Tensor wide = native::zeros({3, 4, 2});
  Tensor strided = native::select(wide, 2, 0);
  native::copy_(strided, b);
  REQUIRE(strided.strides() == Shape{8, 2});
  CHECK(native::mm(a, strided).to_vector<float>() == kAB);
}

TEST_CASE("matmul handles 1-D operands like torch.matmul", "[matmul]") {
  Tensor a = floats(kA, {2, 3}), b = floats(kB, {3, 4});
  Tensor v = floats({1, 2, 3}, {3}), w = floats({0.5f, -1, 2}, {3});
  Tensor dot = native::matmul(v, w);
  CHECK(dot.dim() == 0);
  CHECK(dot.item<float>() == 4.5f);
  Tensor mv = native::matmul(a, v);
  CHECK(mv.sizes() == Shape{2});
  CHECK(mv.to_vector<float>() == std::vector<float>{-2, 7});
  Tensor vm = native::matmul(v, b);
  CHECK(vm.sizes() == Shape{4});
  CHECK(vm.to_vector<float>() == std::vector<float>{-1, 0.5f, 2, 3.5f});
  CHECK_THROWS_WITH(native::matmul(v, floats({1, 2}, {2})),
                    Contains("matmul: shapes [3] and [2] cannot be multiplied"));
}

TEST_CASE("matmul broadcasts batch dims", "[matmul]") {
  Tensor a = random({2, 1, 3, 4}, kFloat64, 1);
  Tensor b = random({5, 4, 2}, kFloat64, 2);
  Tensor out = native::matmul(a, b);
  REQUIRE(out.sizes() == Shape{2, 5, 3, 2});
  check_close(out.to_vector<double>(),
              reference_matmul(native::expand(a, {2, 5, 3, 4}), native::expand(b, {2, 5, 4, 2})), 1e-12);

  // A batched left operand against a matrix folds into one product; against a vector too.
  Tensor m = random({4, 6}, kFloat64, 3);
  Tensor folded = native::matmul(native::transpose(random({2, 4, 3}, kFloat64, 4), 1, 2), m);
  CHECK(folded.sizes() == Shape{2, 3, 6});
  Tensor vec = native::matmul(a, random({4}, kFloat64, 5));
  CHECK(vec.sizes() == Shape{2, 1, 3});
  Tensor left_vec = native::matmul(random({4}, kFloat64, 5), b);
  CHECK(left_vec.sizes() == Shape{5, 2});
  check_close(left_vec.to_vector<double>(),
              reference_matmul(native::expand(native::view(random({4}, kFloat64, 5), {1, 1, 4}), {5, 1, 4}), b), 1e-12);
  CHECK_THROWS_WITH(native::matmul(random({2, 3, 4}, kFloat64, 1), random({3, 4, 2}, kFloat64, 1)),
                    Contains("matmul") && Contains("broadcast"));
}

TEST_CASE("large products match the reference in both float types", "[matmul]") {
  for (DType dtype : {kFloat64, kFloat32}) {
    Tensor a = random({150, 130}, dtype, 7), b = random({90, 130}, dtype, 8);
    // b^T as a transposed view, so the product reads a column-major operand.
    Tensor out = native::mm(a, native::transpose(b, 0, 1));
    double tol = dtype == kFloat64 ? 1e-10 : 1e-4;
    check_close(out.to_vector<double>(), reference_matmul(a, native::contiguous(native::transpose(b, 0, 1))), tol);
  }
}

TEST_CASE("bmm runs a batch of small products", "[matmul]") {
  Tensor a = random({64, 5, 7}, kFloat32, 9), b = random({64, 7, 3}, kFloat32, 10);
  Tensor out = native::bmm(a, b);
  CHECK(out.sizes() == Shape{64, 5, 3});
  check_close(out.to_vector<double>(), reference_matmul(a, b), 1e-5);
  CHECK_THROWS_WITH(native::bmm(a, random({63, 7, 3}, kFloat32, 1)), Contains("bmm") && Contains("64 != 63"));
  CHECK_THROWS_WITH(native::bmm(a, native::select(b, 0, 0)), Contains("bmm: expected 3-D"));
}

TEST_CASE("addmm scales and adds a broadcast bias", "[matmul]") {
  Tensor a = floats(kA, {2, 3}), b = floats(kB, {3, 4});
  Tensor bias = floats({1, -1, 2, 0}, {4});
  // torch.addmm(bias, a, b, beta=0.5, alpha=2)
  CHECK(native::addmm(bias, a, b, 0.5, 2).to_vector<float>() ==
        std::vector<float>{4, 2.25f, 3, 1.25f, -0.5f, 0, 3, 3.5f});
  // beta = 0 ignores the bias, NaN included.
  Tensor nan_bias = native::full({2, 4}, NAN, kFloat32);
  CHECK(native::addmm(nan_bias, a, b, 0, 1).to_vector<float>() == kAB);
  CHECK_THROWS_WITH(native::addmm(floats({1, 2, 3}, {3}), a, b), Contains("addmm"));
}

TEST_CASE("integer and reduced-precision matmul", "[matmul]") {
  std::vector<int64_t> x = {0, 1, 2, 3, 4, 5}, y(12);
  for (int64_t i = 0; i < 12; ++i) y[i] = i - 5;
  Tensor a = native::from_vector(x, {2, 3}, kInt64), b = native::from_vector(y, {3, 4}, kInt64);
  Tensor out = native::matmul(a, b);
  CHECK(out.dtype() == kInt64);
  CHECK(out.to_vector<int64_t>() == std::vector<int64_t>{5, 8, 11, 14, -4, 8, 20, 32});  // torch: ai @ bi
  CHECK(native::matmul(native::to(a, kCPU, kInt32), native::to(b, kCPU, kInt32)).to_vector<int64_t>() ==
        out.to_vector<int64_t>());

  Tensor h =
      native::matmul(native::to(floats(kA, {2, 3}), kCPU, kBFloat16), native::to(floats(kB, {3, 4}), kCPU, kBFloat16));
  CHECK(h.dtype() == kBFloat16);
  CHECK(h.to_vector<float>() == kAB);
}

TEST_CASE("matmul errors name the op, shapes and dtypes", "[matmul]") {
  Tensor x = native::zeros({64, 784}), y = native::zeros({128, 10});
  CHECK_THROWS_WITH(native::mm(x, y), "mm: shapes [64, 784] and [128, 10] cannot be multiplied (784 != 128)");
  CHECK_THROWS_WITH(native::matmul(x, y), "matmul: shapes [64, 784] and [128, 10] cannot be multiplied (784 != 128)");
  CHECK_THROWS_WITH(native::mm(native::zeros({2, 2}), native::zeros({2, 2}, kFloat64)),
                    Contains("float32") && Contains("float64"));
  CHECK_THROWS_WITH(native::matmul(native::scalar_tensor(1.0, kFloat32), x), Contains("at least 1-D"));
  CHECK_THROWS_WITH(native::mm(native::zeros({2, 2}, kBool), native::zeros({2, 2}, kBool)), Contains("bool"));
}

TEST_CASE("empty operands give empty or zero results", "[matmul]") {
  CHECK(native::mm(native::zeros({0, 3}), native::zeros({3, 4})).sizes() == Shape{0, 4});
  Tensor zero_k = native::mm(native::zeros({2, 0}), native::zeros({0, 3}));
  CHECK(zero_k.to_vector<float>() == std::vector<float>(6, 0.0f));
}
