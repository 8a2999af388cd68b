// The fused optimizer updates against the same sequence of separate ops, on contiguous and
// strided operands, their multi-tensor forms against them, and their argument errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
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

// Operands of a multi-tensor update: a [5, 7] parameter, a transposed (strided) one, one whose
// gradient is transposed (laid out unlike it), an empty one and a [33] one; each list the same
// values as the per-tensor operands it is compared with.
std::vector<Tensor> operands(DType dtype, uint64_t seed) {
  Tensor strided = native::transpose(random_tensor({7, 5}, dtype, seed + 1), 0, 1);
  return {random_tensor({5, 7}, dtype, seed), strided, random_tensor({5, 7}, dtype, seed + 2),
          random_tensor({0, 3}, dtype, seed + 3), random_tensor({33}, dtype, seed + 4)};
}

std::vector<Tensor> clones(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(native::clone(t));
  return out;
}

bool same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!native::equal(a[i], b[i])) return false;
  }
  return a.size() == b.size();
}

TEST_CASE("multi_tensor_sgd_step_ and multi_tensor_adam_step_ equal the per-tensor ops, any layout") {
  for (DType dtype : {kFloat32, kFloat64}) {
    std::vector<Tensor> grads = operands(dtype, 10);
    grads[2] = native::transpose(native::contiguous(native::transpose(grads[2], 0, 1)), 0, 1);
    SgdStepParams sgd;
    sgd.lr = 0.1, sgd.momentum = 0.9, sgd.dampening = 0.1, sgd.weight_decay = 0.01, sgd.nesterov = false;
    std::vector<Tensor> params = operands(dtype, 20), buffers = operands(dtype, 30);
    std::vector<Tensor> params_ref = clones(params), buffers_ref = clones(buffers);
    const uint32_t version = params[0].version(), grad_version = grads[0].version();
    native::multi_tensor_sgd_step_(params, grads, buffers, sgd);
    for (size_t i = 0; i < params.size(); ++i) native::sgd_step_(params_ref[i], grads[i], buffers_ref[i], sgd);
    CHECK(same(params, params_ref));
    CHECK(same(buffers, buffers_ref));
    CHECK(params[0].version() > version);
    CHECK(grads[0].version() == grad_version);

    AdamStepParams adam;
    adam.lr = 0.01, adam.amsgrad = true, adam.weight_decay = 0.1, adam.step_size = 0.02;
    adam.bias_correction2_sqrt = 0.5;
    std::vector<Tensor> m = operands(dtype, 40), v = operands(dtype, 50), v_max = operands(dtype, 60);
    for (std::vector<Tensor>* list : {&v, &v_max}) {
      for (Tensor& t : *list) t = native::unary(UnaryOp::Abs, t);
    }
    std::vector<Tensor> m_ref = clones(m), v_ref = clones(v), v_max_ref = clones(v_max);
    native::multi_tensor_adam_step_(params, grads, m, v, v_max, adam);
    for (size_t i = 0; i < params.size(); ++i) {
      native::adam_step_(params_ref[i], grads[i], m_ref[i], v_ref[i], v_max_ref[i], adam);
    }
    CHECK(same(params, params_ref));
    CHECK(same(m, m_ref));
    CHECK(same(v, v_ref));
    CHECK(same(v_max, v_max_ref));
  }
}

TEST_CASE("multi_tensor_non_finite_check_and_unscale_ equals the per-tensor op and finds an inf in any gradient") {
  std::vector<Tensor> grads = operands(kFloat32, 70);
  Tensor column = native::select(grads[1], 1, 2);
  native::fill_(column, Scalar(std::numeric_limits<double>::infinity()));
  std::vector<Tensor> grads_ref = clones(grads);
  Tensor found = native::zeros({1}, TensorOptions().dtype(kFloat32));
  Tensor found_ref = native::zeros({1}, TensorOptions().dtype(kFloat32));
  native::multi_tensor_non_finite_check_and_unscale_(grads, found, 0.25f);
  for (const Tensor& g : grads_ref) native::non_finite_check_and_unscale_(g, found_ref, 0.25f);
  CHECK(same(grads, grads_ref));
  CHECK(found.to_vector<float>() == std::vector<float>{1.0f});
  CHECK(found_ref.to_vector<float>() == std::vector<float>{1.0f});
}

TEST_CASE("multi-tensor steps name what does not fit one call") {
  SgdStepParams o;
  o.lr = 0.1;
  auto f32 = TensorOptions().dtype(kFloat32);
  Tensor a = native::zeros({3}, f32), b = native::zeros({3}, TensorOptions().dtype(kFloat64));
  CHECK_THROWS_WITH(native::multi_tensor_sgd_step_({a, b}, {a, b}, {}, o),
                    Catch::Contains("parameter 1") && Catch::Contains("differ in dtype or device"));
  CHECK_THROWS_WITH(native::multi_tensor_sgd_step_({a, a}, {a}, {}, o), Catch::Contains("1 grads for 2 parameters"));
  CHECK_THROWS_WITH(native::multi_tensor_sgd_step_({a}, {Tensor()}, {}, o), Catch::Contains("has no grad"));
  o.momentum = 0.9;
  CHECK_THROWS_WITH(native::multi_tensor_sgd_step_({a}, {a}, {}, o),
                    Catch::Contains("0 momentum_buffers for 1 parameters"));
  CHECK_THROWS_WITH(native::multi_tensor_sgd_step_({a}, {a}, {native::zeros({4}, f32)}, o),
                    Catch::Contains("momentum_buffer (shape [4]"));
  CHECK_THROWS_WITH(native::multi_tensor_non_finite_check_and_unscale_({a, b}, native::zeros({1}, f32), 1.0f),
                    Catch::Contains("differ in dtype or device"));
  native::multi_tensor_sgd_step_({}, {}, {}, o);  // nothing to update
}

}  // namespace
}  // namespace brisk
