// The fused optimizer updates against the same sequence of separate ops, on contiguous and
// strided operands, and their argument errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/generator.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

Tensor random_tensor(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor t = native::empty(shape, TensorOptions().dtype(dtype));
  native::normal_(t, 0.0, 1.0, &gen);
  return t;
}

// The same operations in the same order, but the compiler may contract a multiply and an add
// into one FMA in one form and not the other: a last-bit difference of an intermediate.
double max_relative_difference(const Tensor& a, const Tensor& b) {
  std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]) / std::max(std::abs(y[i]), 1e-3));
  return worst;
}

// param -= lr * buf after buf = momentum * buf + (1 - dampening) * (grad + wd * param), op by op.
void sgd_reference(Tensor& p, const Tensor& grad, Tensor& buf, const SgdStepParams& o) {
  Tensor g = native::binary(BinaryOp::Add, grad, p, OpParams{o.weight_decay});
  native::binary_(BinaryOp::Mul, buf, Scalar(o.momentum));
  native::binary_(BinaryOp::Add, buf, g, OpParams{1.0 - o.dampening});
  native::binary_(BinaryOp::Add, p, buf, OpParams{-o.lr});
}

TEST_CASE("sgd_step_ computes the separate ops' values, for contiguous and strided parameters") {
  for (DType dtype : {kFloat32, kFloat64}) {
    SgdStepParams o;
    o.lr = 0.1;
    o.momentum = 0.9;
    o.dampening = 0.25;
    o.weight_decay = 0.01;
    Tensor grad = random_tensor({5, 7}, dtype, 1);
    Tensor p_ref = random_tensor({5, 7}, dtype, 2), buf_ref = random_tensor({5, 7}, dtype, 3);
    Tensor p = native::clone(p_ref), buf = native::clone(buf_ref);
    // The same values held transposed: a strided parameter and buffer.
    Tensor p_t = native::contiguous(native::transpose(p_ref, 0, 1));
    Tensor buf_t = native::contiguous(native::transpose(buf_ref, 0, 1));
    Tensor p_strided = native::transpose(p_t, 0, 1), buf_strided = native::transpose(buf_t, 0, 1);
    uint32_t version = p.version();

    sgd_reference(p_ref, grad, buf_ref, o);
    native::sgd_step_(p, grad, buf, o);
    native::sgd_step_(p_strided, grad, buf_strided, o);

    const double tolerance = dtype == kFloat32 ? 1e-6 : 1e-15;
    CHECK(max_relative_difference(p, p_ref) < tolerance);
    CHECK(max_relative_difference(buf, buf_ref) < tolerance);
    CHECK(max_relative_difference(p_strided, p) == 0.0);
    CHECK(max_relative_difference(buf_strided, buf) == 0.0);
    CHECK(p.version() > version);
  }
}

TEST_CASE("sgd_step_ without momentum needs no buffer; first_step copies the gradient") {
  SgdStepParams o;
  o.lr = 0.5;
  Tensor p = native::full({3}, 1.0, TensorOptions().dtype(kFloat32));
  Tensor grad = native::full({3}, 2.0, TensorOptions().dtype(kFloat32));
  native::sgd_step_(p, grad, Tensor(), o);
  CHECK(p.to_vector<float>() == std::vector<float>{0.0f, 0.0f, 0.0f});

  o.momentum = 0.9;
  o.first_step = true;
  Tensor buf = native::empty({3}, TensorOptions().dtype(kFloat32));
  native::sgd_step_(p, grad, buf, o);
  CHECK(buf.to_vector<float>() == std::vector<float>{2.0f, 2.0f, 2.0f});
  CHECK(p.to_vector<float>() == std::vector<float>{-1.0f, -1.0f, -1.0f});
}

TEST_CASE("adam_step_ with amsgrad matches the formula in float64") {
  AdamStepParams o;
  o.lr = 0.01;
  o.beta1 = 0.8;
  o.beta2 = 0.9;
  o.eps = 1e-6;
  o.amsgrad = true;
  o.step_size = o.lr / (1 - o.beta1);
  o.bias_correction2_sqrt = std::sqrt(1 - o.beta2);
  auto opts = TensorOptions().dtype(kFloat64);
  Tensor p = native::full({2}, 1.0, opts), grad = native::full({2}, 0.5, opts);
  Tensor m = native::zeros({2}, opts), v = native::zeros({2}, opts), v_max = native::full({2}, 1.0, opts);
  native::adam_step_(p, grad, m, v, v_max, o);
  double m_expected = 0.2 * 0.5, v_expected = 0.1 * 0.25;
  CHECK(m.to_vector<double>()[0] == Approx(m_expected).epsilon(1e-15));
  CHECK(v.to_vector<double>()[0] == Approx(v_expected).epsilon(1e-15));
  CHECK(v_max.to_vector<double>()[0] == 1.0);  // max(1, v)
  double denom = std::sqrt(1.0) / o.bias_correction2_sqrt + o.eps;
  CHECK(p.to_vector<double>()[1] == Approx(1.0 - o.step_size * m_expected / denom).epsilon(1e-15));
}

TEST_CASE("fused steps name the mismatched operand") {
  SgdStepParams o;
  o.lr = 0.1;
  Tensor p = native::zeros({3}, TensorOptions().dtype(kFloat32));
  Tensor wrong = native::zeros({4}, TensorOptions().dtype(kFloat32));
  CHECK_THROWS_WITH(native::sgd_step_(p, wrong, Tensor(), o), Catch::Contains("grad (shape [4]"));
  Tensor ints = native::zeros({3}, TensorOptions().dtype(kInt64));
  CHECK_THROWS_WITH(native::sgd_step_(ints, ints, Tensor(), o), Catch::Contains("float32 or float64"));
  o.momentum = 0.9;
  CHECK_THROWS_WITH(native::sgd_step_(p, p, Tensor(), o), Catch::Contains("needs a momentum buffer"));
}

}  // namespace
}  // namespace brisk
