// The CPU kernels of scaled_dot_product_attention (and the simulated device's, which run them
// on its memory). Each (batch, head) is one task of parallel_for; within it the queries go in
// blocks of kQueryBlock rows, so that the scores of one block ([rows, keys], the only
// quadratic buffer) stay in cache, and a causal block multiplies only by the keys its rows
// see. The products are Eigen's blocked GEMM on maps of the operands' memory.
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "autograd/ops.h"
#include "library/library.h"
#include "tensor/dispatch.h"
#include "tensor/parallel.h"

namespace brisk::nn::attention {
namespace {

constexpr int64_t kQueryBlock = 64;

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const Matrix<T>>;
template <typename T>
using Map = Eigen::Map<Matrix<T>>;

// The keys query row i (of all L) sees: all S, or under the causal mask those j <= i.
int64_t visible_keys(int64_t i, int64_t keys, bool is_causal) { return is_causal ? std::min(keys, i + 1) : keys; }

// The problem's sizes, from contiguous q [N..., L, E], k [N..., S, E], v [N..., S, Ev].
struct Sizes {
  int64_t batch, queries, keys, head_dim, value_dim;
};

Sizes sizes_of(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t d = q.dim();
  return {q.numel() == 0 ? 0 : q.numel() / (q.size(d - 2) * q.size(d - 1)), q.size(d - 2), k.size(d - 2), q.size(d - 1),
          v.size(d - 1)};
}

// The probabilities of query rows [r0, r0 + rows) into `p` ([rows, keys], the keys the block
// sees): the scaled scores, masked, exponentiated against each row's maximum and normalized,
// writing each row's log-sum-exp to `lse_out` (forward), or exponentiated against the
// log-sum-exp forward saved, `saved_lse` (backward). Row pointers index all L queries.
template <typename T>
void block_probabilities(Eigen::Ref<Matrix<T>> p, const ConstMap<T>& q, const ConstMap<T>& k, int64_t r0, int64_t keys,
                         bool is_causal, T scale, T* lse_out, const T* saved_lse) {
  const int64_t rows = p.rows();
  p.noalias() = q.middleRows(r0, rows) * k.topRows(keys).transpose();
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t seen = visible_keys(r0 + i, keys, is_causal);
    auto row = p.row(i);
    if (lse_out) {
      const T max = row.head(seen).maxCoeff() * scale;
      row.head(seen) = (row.head(seen).array() * scale - max).exp();
      const T sum = row.head(seen).sum();
      row.head(seen) /= sum;
      lse_out[r0 + i] = max + std::log(sum);
    } else {
      row.head(seen) = (row.head(seen).array() * scale - saved_lse[r0 + i]).exp();
    }
    row.tail(keys - seen).setZero();
  }
}

template <typename T>
void forward_kernel(const Sizes& n, const T* q, const T* k, const T* v, T* out, T* lse, bool is_causal, T scale) {
  const int64_t L = n.queries, S = n.keys, E = n.head_dim, Ev = n.value_dim;
  parallel_for(0, n.batch, 1, [&](int64_t lo, int64_t hi) {
    Matrix<T> p(std::min(kQueryBlock, L), S);  // [rows, keys]
    for (int64_t b = lo; b < hi; ++b) {
      ConstMap<T> Q(q + b * L * E, L, E), K(k + b * S * E, S, E), V(v + b * S * Ev, S, Ev);
      Map<T> O(out + b * L * Ev, L, Ev);
      for (int64_t r0 = 0; r0 < L; r0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, L - r0);
        const int64_t keys = is_causal ? std::min(S, r0 + rows) : S;
        auto block = p.topLeftCorner(rows, keys);
        block_probabilities<T>(block, Q, K, r0, keys, is_causal, scale, lse + b * L, nullptr);
        O.middleRows(r0, rows).noalias() = block * V.topRows(keys);
      }
    }
  });
}

// With P the probabilities and dO the output's gradient: dV = Pᵀ dO; dP = dO Vᵀ;
// dS = P ∘ (dP - rowsum(dO ∘ O)) (softmax's derivative); dQ = scale dS K; dK = scale dSᵀ Q.
template <typename T>
void backward_kernel(const Sizes& n, const T* grad, const T* q, const T* k, const T* v, const T* out, const T* lse,
                     T* grad_q, T* grad_k, T* grad_v, bool is_causal, T scale) {
  const int64_t L = n.queries, S = n.keys, E = n.head_dim, Ev = n.value_dim;
  parallel_for(0, n.batch, 1, [&](int64_t lo, int64_t hi) {
    Matrix<T> p(std::min(kQueryBlock, L), S), dp(std::min(kQueryBlock, L), S);  // [rows, keys]
    for (int64_t b = lo; b < hi; ++b) {
      ConstMap<T> dO(grad + b * L * Ev, L, Ev), Q(q + b * L * E, L, E), K(k + b * S * E, S, E),
          V(v + b * S * Ev, S, Ev), O(out + b * L * Ev, L, Ev);
      Map<T> dQ(grad_q + b * L * E, L, E), dK(grad_k + b * S * E, S, E), dV(grad_v + b * S * Ev, S, Ev);
      dK.setZero();
      dV.setZero();
      const Eigen::Matrix<T, Eigen::Dynamic, 1> row_dot = (dO.array() * O.array()).rowwise().sum();  // [L]
      for (int64_t r0 = 0; r0 < L; r0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, L - r0);
        const int64_t keys = is_causal ? std::min(S, r0 + rows) : S;
        auto probs = p.topLeftCorner(rows, keys);
        auto ds = dp.topLeftCorner(rows, keys);
        block_probabilities<T>(probs, Q, K, r0, keys, is_causal, scale, nullptr, lse + b * L);
        dV.topRows(keys).noalias() += probs.transpose() * dO.middleRows(r0, rows);
        ds.noalias() = dO.middleRows(r0, rows) * V.topRows(keys).transpose();
        ds.array() = probs.array() * (ds.array().colwise() - row_dot.segment(r0, rows).array());
        dQ.middleRows(r0, rows).noalias() = scale * (ds * K.topRows(keys));
        dK.topRows(keys).noalias() += scale * (ds.transpose() * Q.middleRows(r0, rows));
      }
    }
  });
}

std::tuple<Tensor, Tensor> forward_cpu(const Tensor& query, const Tensor& key, const Tensor& value, bool is_causal,
                                       double scale) {
  Tensor q = query.contiguous(), k = key.contiguous(), v = value.contiguous();
  Shape out_shape = q.sizes();
  out_shape.back() = v.size(-1);
  Tensor out = empty(out_shape, q.options());
  Tensor lse = empty(Shape(q.sizes().begin(), q.sizes().end() - 1), q.options());  // [N..., L]
  const Sizes n = sizes_of(q, k, v);
  dispatch(TypeList<float, double>{}, q.dtype(), "nn::scaled_dot_product_attention", [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_kernel<T>(n, q.data_ptr<T>(), k.data_ptr<T>(), v.data_ptr<T>(), out.data_ptr<T>(), lse.data_ptr<T>(),
                      is_causal, static_cast<T>(scale));
  });
  return {out, lse};
}

std::vector<Tensor> backward_cpu(const Tensor& grad, const Tensor& query, const Tensor& key, const Tensor& value,
                                 const Tensor& out, const Tensor& logsumexp, bool is_causal, double scale) {
  Tensor g = grad.contiguous(), q = query.contiguous(), k = key.contiguous(), v = value.contiguous(),
         o = out.contiguous(), lse = logsumexp.contiguous();
  Tensor grad_q = empty_like(q), grad_k = empty_like(k), grad_v = empty_like(v);
  const Sizes n = sizes_of(q, k, v);
  dispatch(TypeList<float, double>{}, q.dtype(), "nn::scaled_dot_product_attention_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_kernel<T>(n, g.data_ptr<T>(), q.data_ptr<T>(), k.data_ptr<T>(), v.data_ptr<T>(), o.data_ptr<T>(),
                       lse.data_ptr<T>(), grad_q.data_ptr<T>(), grad_k.data_ptr<T>(), grad_v.data_ptr<T>(), is_causal,
                       static_cast<T>(scale));
  });
  return {grad_q, grad_k, grad_v};
}

}  // namespace
}  // namespace brisk::nn::attention

BRISK_LIBRARY_IMPL(nn, CPU, m) {
  m.impl("scaled_dot_product_attention", &brisk::nn::attention::forward_cpu);
  m.impl("scaled_dot_product_attention_backward", &brisk::nn::attention::backward_cpu);
}

// The simulated device runs the CPU kernels on its memory (the device path, tested without a GPU).
BRISK_LIBRARY_IMPL(nn, Sim, m) {
  m.impl("scaled_dot_product_attention", brisk::library::sim_kernel_from_cpu(&brisk::nn::attention::forward_cpu));
  m.impl("scaled_dot_product_attention_backward",
         brisk::library::sim_kernel_from_cpu(&brisk::nn::attention::backward_cpu));
}
