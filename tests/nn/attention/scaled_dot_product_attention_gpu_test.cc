// The CUDA kernels of scaled_dot_product_attention against its CPU kernels (CUDA builds, on a GPU).
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/attention/scaled_dot_product_attention.h"

namespace brisk::nn::functional {
namespace {

TEST_CASE("scaled_dot_product_attention on CUDA: the CPU kernels' values and gradients, causal or not") {
  Generator gen(21);
  for (bool is_causal : {false, true}) {
    INFO("is_causal " << is_causal);
    const int64_t L = 70, S = is_causal ? 70 : 33;
    Tensor q = randn({2, 3, L, 16}, kFloat64, &gen).requires_grad_();
    Tensor k = randn({2, 3, S, 16}, kFloat64, &gen).requires_grad_();
    Tensor v = randn({2, 3, S, 8}, kFloat64, &gen).requires_grad_();
    Tensor grad = randn({2, 3, L, 8}, kFloat64, &gen);
    scaled_dot_product_attention(q, k, v, is_causal).backward(grad);
    Tensor qc = q.detach().cuda().requires_grad_(), kc = k.detach().cuda().requires_grad_(),
           vc = v.detach().cuda().requires_grad_();
    Tensor out = scaled_dot_product_attention(qc, kc, vc, is_causal);
    CHECK(out.is_cuda());
    CHECK(allclose(out.cpu(), scaled_dot_product_attention(q, k, v, is_causal).detach(), 1e-10, 1e-12));
    out.backward(grad.cuda());
    CHECK(allclose(qc.grad().cpu(), q.grad(), 1e-10, 1e-12));
    CHECK(allclose(kc.grad().cpu(), k.grad(), 1e-10, 1e-12));
    CHECK(allclose(vc.grad().cpu(), v.grad(), 1e-10, 1e-12));
  }
}

}  // namespace
}  // namespace brisk::nn::functional
