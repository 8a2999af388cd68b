#pragma once
// Scaled dot-product attention as one fused op with its own backward, as PyTorch's
// torch.nn.functional.scaled_dot_product_attention (without attn_mask and dropout):
//
//   // q [N..., L, E], k [N..., S, E], v [N..., S, Ev] -> [N..., L, Ev]
//   Tensor y = nn::functional::scaled_dot_product_attention(q, k, v, /*is_causal=*/true);
//
// out = softmax(q kᵀ * scale + mask) v, scale = 1/sqrt(E) unless given; is_causal masks key j
// out of query i's row when j > i (PyTorch's top-left aligned mask). The softmax matrix is
// never materialized for the whole batch: each (batch, head) runs in blocks of queries, and
// backward recomputes it from the rows' log-sum-exp saved by forward (the flash-attention
// recipe; its math: docs/training.md, "Attention: one fused op").
//
// Its ops, declared in scaled_dot_product_attention.cc:
//   nn::scaled_dot_product_attention(Tensor q, Tensor k, Tensor v, bool is_causal, float scale) -> (Tensor, Tensor)
//     the output and the rows' log-sum-exp [N..., L]
//   nn::scaled_dot_product_attention_backward(Tensor grad, Tensor q, Tensor k, Tensor v, Tensor out,
//                                              Tensor logsumexp, bool is_causal, float scale) -> Tensor[]
//     the gradients of q, k and v
// with kernels for the CPU and the simulated device (attention_cpu.cc) and, in a CUDA build,
// CUDA (attention_cuda.cu, not yet run on a GPU); float32 and float64.
#include <optional>

#include "autograd/function.h"

namespace brisk::nn::functional {

// q, k, v on one device, of one floating dtype, with the same leading dims N... (no
// broadcasting); `scale` defaults to 1/sqrt(E).
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

struct ScaledDotProductAttentionFunction : autograd::Function<ScaledDotProductAttentionFunction> {
  // The backward is its own kernel, not made of differentiable ops.
  static constexpr bool once_differentiable = true;
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                        bool is_causal, double scale);
  static autograd::TensorList backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs);
};

}  // namespace brisk::nn::functional
