// scaled_dot_product_attention: the fused op against PyTorch's
// (tests/fixtures/gpt.safetensors, tools/fixtures/gen_gpt_fixtures.py) and against the same
// math written with ops (softmax(q kᵀ scale + mask) v), causal and not, over several query
// blocks; float64 gradchecks; its device path on the simulated device; the errors naming the
// shapes.
#include "nn/attention/scaled_dot_product_attention.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "autograd/engine.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "checkpoint/safetensors.h"

namespace brisk::nn::functional {
namespace {

using Catch::Matchers::Contains;

// The unfused math: the [L, S] scores materialized, the causal mask top-left aligned.
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal, double scale) {
  Tensor scores = matmul(q, k.transpose(-2, -1)) * scale;
  if (is_causal) {
    const int64_t L = q.size(-2), S = k.size(-2);
    Tensor above = arange(S, kInt64).view({1, S}) > arange(L, kInt64).view({L, 1});  // key j > query i
    scores = scores.masked_fill(above, -std::numeric_limits<double>::infinity());
  }
  return matmul(scores.softmax(-1), v);
}

TEST_CASE("scaled_dot_product_attention equals PyTorch's in float64: outputs and gradients") {
  const checkpoint::Safetensors fixture = checkpoint::load_safetensors("tests/fixtures/gpt.safetensors");
  for (const std::string name : {"causal", "full_cross", "causal_scaled"}) {
    INFO("case " << name);
    auto entry = [&](const std::string& key) { return fixture.tensors.at("sdpa." + name + "." + key); };
    const std::vector<double> params = entry("params").to_vector<double>();  // is_causal, scale
    Tensor q = entry("q").requires_grad_(), k = entry("k").requires_grad_(), v = entry("v").requires_grad_();
    Tensor out = scaled_dot_product_attention(q, k, v, params[0] != 0, params[1]);
    CHECK(allclose(out, entry("out"), 1e-12, 1e-12));
    out.backward(entry("grad_out"));
    CHECK(allclose(q.grad(), entry("grad_q"), 1e-11, 1e-12));
    CHECK(allclose(k.grad(), entry("grad_k"), 1e-11, 1e-12));
    CHECK(allclose(v.grad(), entry("grad_v"), 1e-11, 1e-12));
  }
}

TEST_CASE("scaled_dot_product_attention equals softmax(q kT scale + mask) v, and so do its gradients") {
  Generator gen(11);
  // L = 70 crosses the kernel's 64-query blocks; S != L and Ev != E where not causal.
  for (bool is_causal : {false, true}) {
    const int64_t L = 70, S = is_causal ? 70 : 45, E = 8, Ev = is_causal ? 8 : 5;
    INFO("is_causal " << is_causal);
    Tensor q = randn({2, 3, L, E}, kFloat64, &gen).requires_grad_();
    Tensor k = randn({2, 3, S, E}, kFloat64, &gen).requires_grad_();
    Tensor v = randn({2, 3, S, Ev}, kFloat64, &gen).requires_grad_();
    Tensor grad = randn({2, 3, L, Ev}, kFloat64, &gen);
    Tensor out = scaled_dot_product_attention(q, k, v, is_causal);
    Tensor expected = reference(q, k, v, is_causal, 1.0 / std::sqrt(double(E)));
    CHECK(allclose(out, expected, 1e-12, 1e-12));
    std::vector<Tensor> got = autograd::grad({out}, {q, k, v}, {grad});
    std::vector<Tensor> want = autograd::grad({expected}, {q, k, v}, {grad});
    for (size_t i = 0; i < 3; ++i) CHECK(allclose(got[i], want[i], 1e-11, 1e-11));
  }
}

TEST_CASE("scaled_dot_product_attention passes float64 gradchecks, causal or not, with a given scale") {
  Generator gen(12);
  Tensor q = randn({2, 5, 4}, kFloat64, &gen).requires_grad_();
  Tensor k = randn({2, 5, 4}, kFloat64, &gen).requires_grad_();
  Tensor v = randn({2, 5, 3}, kFloat64, &gen).requires_grad_();
  for (bool is_causal : {false, true}) {
    INFO("is_causal " << is_causal);
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& in) {
          return scaled_dot_product_attention(in[0], in[1], in[2], is_causal, 0.7);
        },
        {q, k, v}));
  }
  // Strided views (a transpose, as the model's heads) are read as they are.
  Tensor qt = randn({5, 2, 4}, kFloat64, &gen).requires_grad_();
  CHECK(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) {
        return scaled_dot_product_attention(in[0].transpose(0, 1), in[1], in[2], true);
      },
      {qt, k, v}));
}

TEST_CASE("scaled_dot_product_attention in float32 matches float64 within float32's precision") {
  Generator gen(13);
  Tensor q = randn({4, 100, 16}, kFloat64, &gen), k = randn({4, 100, 16}, kFloat64, &gen),
         v = randn({4, 100, 16}, kFloat64, &gen);
  Tensor exact = scaled_dot_product_attention(q, k, v, true);
  Tensor single = scaled_dot_product_attention(q.to(kFloat32), k.to(kFloat32), v.to(kFloat32), true);
  CHECK(single.dtype() == kFloat32);
  CHECK(allclose(single.to(kFloat64), exact, 1e-5, 1e-5));
}

TEST_CASE("on sim:1 scaled_dot_product_attention runs its device kernels: the CPU's values and gradients") {
  const Device sim = sim_device(1);
  Generator gen(14);
  Tensor q = randn({2, 9, 4}, kFloat32, &gen).requires_grad_();
  Tensor k = randn({2, 9, 4}, kFloat32, &gen).requires_grad_();
  Tensor v = randn({2, 9, 4}, kFloat32, &gen).requires_grad_();
  Tensor out = scaled_dot_product_attention(q, k, v, true);
  out.sum().backward();
  Tensor qs = q.detach().to(sim).requires_grad_(), ks = k.detach().to(sim).requires_grad_(),
         vs = v.detach().to(sim).requires_grad_();
  Tensor outs = scaled_dot_product_attention(qs, ks, vs, true);
  CHECK(outs.device() == sim);
  CHECK(allclose(outs.cpu(), out.detach()));
  outs.sum().backward();
  REQUIRE(qs.grad().defined());
  CHECK(qs.grad().device() == sim);
  CHECK(allclose(qs.grad().cpu(), q.grad(), 1e-5, 1e-6));
  CHECK(allclose(ks.grad().cpu(), k.grad(), 1e-5, 1e-6));
  CHECK(allclose(vs.grad().cpu(), v.grad(), 1e-5, 1e-6));
}

TEST_CASE("scaled_dot_product_attention names the shapes it cannot attend over") {
  Tensor q = zeros({2, 3, 4});
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, zeros({2, 3, 5}), zeros({2, 3, 4})),
                    Contains("expected query [N..., L, E], key [N..., S, E] and value [N..., S, Ev] with the same "
                             "N..., got query [2, 3, 4], key [2, 3, 5] and value [2, 3, 4]"));
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, zeros({3, 3, 4}), zeros({3, 3, 4})), Contains("with the same N"));
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, zeros({2, 0, 4}), zeros({2, 0, 4})), Contains("no keys"));
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, q.to(kFloat64), q), Contains("differ in dtype"));
}

}  // namespace
}  // namespace brisk::nn::functional
