#include "nn/attention/scaled_dot_product_attention.h"

#include <cmath>
#include <tuple>
#include <vector>

#include "library/library.h"

// The ops, in PyTorch's schema syntax (library/schema.h); their kernels: attention_cpu.cc.
BRISK_LIBRARY(nn, m) {
  m.def("scaled_dot_product_attention(Tensor q, Tensor k, Tensor v, bool is_causal, float scale) -> (Tensor, Tensor)");
  m.def(
      "scaled_dot_product_attention_backward(Tensor grad, Tensor q, Tensor k, Tensor v, Tensor out, Tensor logsumexp, "
      "bool is_causal, float scale) -> Tensor[]");
}

namespace brisk::nn::functional {
namespace {

using ForwardOp = std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&, bool, double);
using BackwardOp = std::vector<Tensor>(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                       const Tensor&, bool, double);

// q [N..., L, E], k [N..., S, E], v [N..., S, Ev], with one N... and S > 0.
void check_shapes(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t d = q.dim();
  bool ok = d >= 2 && k.dim() == d && v.dim() == d && k.size(-1) == q.size(-1) && v.size(-2) == k.size(-2);
  for (int64_t i = 0; ok && i < d - 2; ++i) ok = k.size(i) == q.size(i) && v.size(i) == q.size(i);
  BRISK_CHECK(ok,
              "scaled_dot_product_attention: expected query [N..., L, E], key [N..., S, E] and value [N..., S, Ev] "
              "with the same N..., got query {}, key {} and value {}",
              q.sizes(), k.sizes(), v.sizes());
  BRISK_CHECK(k.size(-2) > 0, "scaled_dot_product_attention: no keys (key {}): every query needs one to attend to",
              k.sizes());
}

}  // namespace

Tensor ScaledDotProductAttentionFunction::forward(autograd::AutogradContext* ctx, const Tensor& q, const Tensor& k,
                                                  const Tensor& v, bool is_causal, double scale) {
  check_shapes(q, k, v);
  static const auto op = library::find_op<ForwardOp>("nn::scaled_dot_product_attention");
  auto [out, logsumexp] = op(q, k, v, is_causal, scale);
  ctx->save_for_backward({q, k, v, out, logsumexp});
  ctx->saved_data["is_causal"] = is_causal;
  ctx->saved_data["scale"] = scale;
  return out;
}

autograd::TensorList ScaledDotProductAttentionFunction::backward(autograd::AutogradContext* ctx,
                                                                 autograd::TensorList grad_outputs) {
  static const auto op = library::find_op<BackwardOp>("nn::scaled_dot_product_attention_backward");
  const autograd::TensorList saved = ctx->get_saved_variables();
  std::vector<Tensor> grads = op(grad_outputs[0], saved[0], saved[1], saved[2], saved[3], saved[4],
                                 ctx->saved_data["is_causal"].toBool(), ctx->saved_data["scale"].toDouble());
  return {grads[0], grads[1], grads[2], Tensor(), Tensor()};
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal,
                                    std::optional<double> scale) {
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  return ScaledDotProductAttentionFunction::apply(q, k, v, is_causal, s);
}

}  // namespace brisk::nn::functional
